/**
 * One resource template under `mcp-codegen test`: variables sampled from their declared types and enums,
 * expanded into a URI (RFC 6570) and read with resources/read, which must answer contents (at least one
 * item, each with a uri and a text or blob); then, per variable whose type or enum the template lets a
 * URI break, a URI with a value it does not take, which must be refused with -32602 naming the variable.
 */

import fc from "fast-check";
import type { ContractTemplate } from "../contract/model.js";
import { readsBack, uriTemplateOf } from "../contract/template-uris.js";
import { wrongUris } from "../contract/wrong-uris.js";
import type { Json } from "../load.js";
import {
  assertSampled,
  type ItemRun,
  printItem,
  propertyRun,
  refusals,
  smallest,
  Violation,
} from "./test-run.js";
import { contentsProblem, invalidParamsProblem, show } from "./test-verdicts.js";

interface Sample {
  variables: Record<string, Json>;
  uri: string;
}

/** The template's property run, then its refusals; prints its summary or its failures. Passed or not. */
export async function testTemplate(
  template: ContractTemplate,
  arbitrary: fc.Arbitrary<Json>,
  run: ItemRun,
): Promise<boolean> {
  const { session } = run;
  const check = run.checks.get(template.vars)!;
  const uriTemplate = uriTemplateOf(template);
  const samples: fc.Arbitrary<Sample> = arbitrary.map((v) => {
    const variables = v as Record<string, Json>;
    return { variables, uri: uriTemplate.expand(variables) };
  });
  const probe = async ({ variables, uri }: Sample): Promise<void> => {
    assertSampled(check, variables, "variables");
    // A value this template cannot carry is not sent: the server would read another.
    fc.pre(readsBack(uriTemplate, template, variables, uri));
    const problem = contentsProblem(await session.readResource(uri));
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
  );

  const readable = fc
    .sample(samples, { numRuns: 20, seed: run.seed })
    .filter((s) => readsBack(uriTemplate, template, s.variables, s.uri));
  const valid = smallest(readable.map((s) => s.variables));
  const mistakes = valid ? wrongUris(uriTemplate, template, valid, check) : [];
  await refusals(
    report,
    mistakes.map((m) => ({
      field: m.field,
      mistake: m.mistake,
      send: () => session.readResource(m.uri),
      shown: [`    uri:       ${m.uri}`],
    })),
    { kind: "variable", noun: "URIs" },
    (outcome, field) => invalidParamsProblem(outcome, field),
  );
  return printItem(run, `resource template ${template.name}`, report);
}
