import { defineConfig } from "vitest/config";

export default defineConfig({
  resolve: { conditions: ["mcp-codegen-source"] },
  ssr: { resolve: { conditions: ["mcp-codegen-source"] } },
  test: {
    include: ["test/**/*.test.ts"],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: "forks",
    reporters: ["default", "./test/summary-reporter.ts"],
  },
});
