/**
 * One resource template under `mcp-codegen test`: the contract's variable examples and defaults, then
 * variables sampled from their declared types and enums, expanded into a URI (RFC 6570) and read with
 * resources/read, which must answer contents (at least one item, each with a uri and a text or blob). A
 * template usually serves data: a sampled id that names nothing may be answered "not found" (-32002),
 * but a URI made from the contract's `examples` must be found. Then, per variable whose type or enum the
 * template lets a URI break, a URI with a value it does not take, which must be refused with -32602
 * naming the variable.
 */

import fc from "fast-check";
import type { ContractTemplate } from "../../contract/model.js";
import type { Json } from "../../protocol/load.js";
import { seedsOf } from "../../sampling/seeds.js";
import { readsBack, uriTemplateOf } from "../../sampling/template-uris.js";
import { wrongUris } from "../../sampling/wrong-uris.js";
import { requiredArguments } from "../../sampling/wrong-values.js";
import {
  assertSampled,
  checkedSeeds,
  type ItemOutcome,
  type ItemRun,
  notSlow,
  printItem,
  propertyRun,
  refusals,
  smallest,
  Violation,
} from "./run.js";
import { contentsProblem, describeOutcome, invalidParamsProblem, isNotFound, show } from "./verdicts.js";

interface Sample {
  variables: Record<string, Json>;
  uri: string;
}

/** The template's property run, then its refusals; prints its summary or its failures. How it came out. */
export async function testTemplate(
  template: ContractTemplate,
  arbitrary: fc.Arbitrary<Json>,
  run: ItemRun,
): Promise<ItemOutcome> {
  const { session } = run;
  const check = run.checks.get(template.vars)!;
  const uriTemplate = uriTemplateOf(template);
  const sample = (variables: Record<string, Json>): Sample => ({
    variables,
    uri: uriTemplate.expand(variables),
  });
  const samples: fc.Arbitrary<Sample> = arbitrary.map((v) => sample(v as Record<string, Json>));
  const readable = fc
    .sample(samples, { numRuns: 20, seed: run.seed })
    .filter((s) => readsBack(uriTemplate, template, s.variables, s.uri));
  const valid = smallest(readable.map((s) => s.variables));
  const required = requiredArguments(run.definitions[template.vars]!, run.definitions);
  const seeded = checkedSeeds(seedsOf(template.test, valid ?? {}, required), check, "the variables");
  // URIs the contract's examples name: the server must find these.
  const known = new Set(seeded.seeds.filter((s) => s.fromExamples).map((s) => sample(s.value).uri));
  let notFound = 0;
  const probe = async ({ variables, uri }: Sample): Promise<void> => {
    assertSampled(check, variables, "variables");
    // A value this template cannot carry is not sent: the server would read another.
    fc.pre(readsBack(uriTemplate, template, variables, uri));
    const outcome = await session.readResource(uri, run.timeoutMs);
    notSlow(outcome);
    if (isNotFound(outcome)) {
      if (known.has(uri))
        throw new Violation(
          `${describeOutcome(outcome)}: the URI is made from the contract's examples, so it must be found`,
        );
      notFound++;
      return;
    }
    const problem = contentsProblem(outcome);
    if (problem !== undefined) throw new Violation(problem);
  };
  const report = await propertyRun(
    samples,
    probe,
    run,
    ({ variables, uri }) => [
      "  sampled variables",
      `    variables: ${show(variables)}`,
      `    uri:       ${uri}`,
    ],
    {
      why: "did not read back from their URI",
      problem:
        "the template cannot carry the values sampled for it (a {v:3} prefix shorter than the value, two adjacent variables): the URIs a client builds from it read back otherwise",
    },
    seeded.seeds.map((s) => sample(s.value)),
  );
  report.problems.unshift(...seeded.problems);
  if (report.problems.length === 0 && notFound > 0) report.summary += ` (${notFound} answered not found)`;

  const mistakes = valid ? wrongUris(uriTemplate, template, valid, check) : [];
  await refusals(
    run,
    report,
    mistakes.map((m) => ({
      field: m.field,
      mistake: m.mistake,
      send: () => session.readResource(m.uri, run.timeoutMs),
      shown: [`    uri:       ${m.uri}`],
    })),
    { kind: "variable", noun: "URIs" },
    (outcome, field) => invalidParamsProblem(outcome, field),
  );
  return printItem(run, `resource template ${template.name}`, report);
}
