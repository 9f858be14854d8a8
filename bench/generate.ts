/**
 * Generation time: the whole pipeline (parse, model, four emitters, formatting) against
 * json-schema-to-typescript alone compiling the same schema with its defaults (which also format).
 * Target: pipeline ≤ 1.5× the library. Prints a table, or JSON rows with --json.
 */

import { compile } from "json-schema-to-typescript";
import { generate } from "../generator/emit/generate.js";
import { registryFacts } from "../generator/protocol/protocol-model.js";
import { loadSchemaSource } from "../schema/loader.js";
import { listVersions } from "../schema/registry.js";

/** Runs per figure: 5, or 1 with --quick (a smoke run); BENCH_RUNS overrides. */
const RUNS = Number(process.env.BENCH_RUNS ?? (process.argv.includes("--quick") ? 1 : 5));

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

const HEADER = [
  `median of ${RUNS} runs after a warm-up; ratio = ours / json-schema-to-typescript alone (target ≤ 1.5)`,
  "library alone = json-schema-to-typescript with its defaults (it formats with prettier)",
];

if (process.argv.includes("--json")) {
  // The same shape as the other benches' reports; the columns are this bench's own.
  const report = {
    name: "generate",
    header: HEADER,
    rows: rows.map((r) => ({
      figure: r.figure,
      ours: r.ours,
      library: r.library,
      libraryUnformatted: r.libraryUnformatted,
      unit: r.unit,
      targets: [{ text: "≤ 1.5× library", met: r.ratio <= 1.5 }],
    })),
  };
  console.log(JSON.stringify(report, null, 2));
} else {
  for (const line of HEADER) console.log(line);
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
