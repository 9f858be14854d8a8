/**
 * Generation time: the whole pipeline (parse, model, four emitters, formatting) against
 * json-schema-to-typescript alone compiling the same schema with its defaults (which also format).
 * Target: pipeline ≤ 1.5× the library. Prints a table, or JSON rows with --json.
 */

import { compile } from "json-schema-to-typescript";
import { generate, registryFacts } from "../generator/generate.js";
import { loadSchemaSource } from "../schema/loader.js";
import { listVersions } from "../schema/registry.js";

const RUNS = Number(process.env.BENCH_RUNS ?? 5);

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
};

async function time(fn: () => Promise<unknown>): Promise<number> {
  await fn(); // warm-up: module loading and JIT are not what we compare
  const samples: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const t0 = performance.now();
    await fn();
    samples.push(performance.now() - t0);
  }
  return median(samples);
}

/** What a user of the library alone would do: hand it the schema, definitions included. */
function libraryInput(text: string): Parameters<typeof compile>[0] {
  const doc = JSON.parse(text.replaceAll("#/$defs/", "#/definitions/"));
  const { $schema: _, $defs, definitions, ...rest } = doc;
  return {
    ...rest,
    title: "Root",
    type: "object",
    additionalProperties: false,
    definitions: $defs ?? definitions,
  };
}

const rows: {
  figure: string;
  ours: number;
  library: number;
  libraryUnformatted: number;
  ratio: number;
  lines: number;
  unit: string;
}[] = [];
for (const version of listVersions()) {
  const source = await loadSchemaSource({ version });
  const input = {
    version,
    ...registryFacts(version),
    text: source.text,
    sha256: source.sha256,
    location: source.location,
  };
  const ours = await time(() => generate(input));
  const library = await time(() =>
    compile(libraryInput(source.text), "Root", { unreachableDefinitions: true }),
  );
  const libraryUnformatted = await time(() =>
    compile(libraryInput(source.text), "Root", { unreachableDefinitions: true, format: false }),
  );
  const { files } = await generate(input);
  const lines = Object.values(files).reduce((n, t) => n + t.split("\n").length - 1, 0);
  rows.push({
    figure: `generate ${version}`,
    ours,
    library,
    libraryUnformatted,
    ratio: ours / library,
    lines,
    unit: "ms",
  });
}
const total = (k: "ours" | "library" | "libraryUnformatted") => rows.reduce((n, r) => n + r[k], 0);
rows.push({
  figure: "generate all versions",
  ours: total("ours"),
  library: total("library"),
  libraryUnformatted: total("libraryUnformatted"),
  ratio: total("ours") / total("library"),
  lines: rows.reduce((n, r) => n + r.lines, 0),
  unit: "ms",
});

if (process.argv.includes("--json")) {
  console.log(
    JSON.stringify(
      rows.map((r) => ({
        figure: r.figure,
        ours: r.ours,
        library: r.library,
        libraryUnformatted: r.libraryUnformatted,
        unit: r.unit,
      })),
    ),
  );
} else {
  console.log(
    `median of ${RUNS} runs after a warm-up; ratio = ours / json-schema-to-typescript alone (target ≤ 1.5)`,
  );
  console.log("library alone = json-schema-to-typescript with its defaults (it formats with prettier)");
  console.log(
    "| figure | ours (ms) | library alone (ms) | ratio | library, format off (ms) | generated lines |",
  );
  console.log("|---|---:|---:|---:|---:|---:|");
  for (const r of rows) {
    const cells = [
      r.ours.toFixed(0),
      r.library.toFixed(0),
      r.ratio.toFixed(2),
      r.libraryUnformatted.toFixed(0),
      r.lines,
    ];
    console.log(`| ${r.figure} | ${cells.join(" | ")} |`);
  }
}
