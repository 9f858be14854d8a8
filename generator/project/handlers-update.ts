/**
 * The update of a user's handlers file when `generate` moves to another protocol version: a stub for each
 * handler the new version brings, a mark on each handler it no longer has. Text is only inserted, in the
 * file's own style, except for what this function wrote itself earlier: the `notImplemented` import may
 * gain a name, and its marks follow the version (updated, or removed when the handler is back).
 */

import type { Node as MorphNode, ts as morphTs } from "ts-morph";
import { Node, Project, ts } from "../util/ts-morph.js";
import { notImplementedCallee } from "./handlers-import.js";
import { fileStyle } from "./handlers-style.js";
import { appendProperties, type NewProperty } from "./object-append.js";
import { ProjectError } from "./project.js";
import { applyEdits, lineStart, type TextEdit } from "./text-edits.js";

export interface HandlersUpdate {
  text: string;
  added: string[];
  markedRemoved: string[];
  /** Handlers whose earlier mark was removed: the new version has them again. */
  unmarked: string[];
}

const MARK = /^\/\/ mcp-codegen: not in protocol (\S+): this handler is never called\.$/;
const mark = (version: string) => `// mcp-codegen: not in protocol ${version}: this handler is never called.`;

/**
 * Adds a `notImplemented` stub for each handler the new version has and the old did not, and marks
 * handlers the new version no longer has. The user's properties, bodies and comments stay byte for byte.
 * Idempotent: a second run with the same versions changes nothing.
 */
export function updateHandlers(
  text: string,
  file: string,
  opts: { before: Map<string, string>; after: Map<string, string>; version: string; importFrom: string },
): HandlersUpdate {
  // Syntax only: without the lib files the program holds this one file (with them, about 1 s of parsing).
  const project = new Project({
    useInMemoryFileSystem: true,
    skipLoadingLibFiles: true,
    compilerOptions: { noLib: true },
  });
  const sf = project.createSourceFile("handlers.ts", text);
  const syntax = project.getProgram().compilerObject.getSyntacticDiagnostics(sf.compilerNode);
  if (syntax.length > 0) {
    const d = syntax[0]!;
    const { line, character } = sf.compilerNode.getLineAndCharacterOfPosition(d.start ?? 0);
    const message = typeof d.messageText === "string" ? d.messageText : d.messageText.messageText;
    throw new ProjectError(`${file}:${line + 1}:${character + 1}: does not parse: ${message}`);
  }
  let object: MorphNode | undefined = sf.getVariableDeclaration("handlers")?.getInitializer();
  while (
    object &&
    (Node.isSatisfiesExpression(object) ||
      Node.isAsExpression(object) ||
      Node.isParenthesizedExpression(object))
  ) {
    object = object.getExpression();
  }
  if (!object || !Node.isObjectLiteralExpression(object)) {
    throw new ProjectError(
      `${file}: cannot find \`export const handlers = { ... }\` (an object literal) to update`,
    );
  }
  const present = new Map<string, MorphNode>();
  for (const p of object.getProperties()) {
    if (
      Node.isPropertyAssignment(p) ||
      Node.isMethodDeclaration(p) ||
      Node.isShorthandPropertyAssignment(p)
    ) {
      present.set(p.getName().replace(/^["']|["']$/g, ""), p);
    }
  }

  const style = fileStyle(sf);
  const edits: TextEdit[] = [];
  const markedRemoved: string[] = [];
  const unmarked: string[] = [];
  for (const [name, node] of present) {
    const marks = (ts.getLeadingCommentRanges(text, node.getPos()) ?? []).filter((c) =>
      MARK.test(text.slice(c.pos, c.end)),
    );
    /** Removes a mark this function wrote, with its line when it has one of its own. */
    const unmark = (c: morphTs.CommentRange) => {
      const start = lineStart(text, c.pos);
      const from = text.slice(start, c.pos).trim() === "" ? start : c.pos;
      const end = text.startsWith(style.newline, c.end) ? c.end + style.newline.length : c.end;
      edits.push({ pos: from, remove: end - from, text: "" });
    };
    if (opts.after.has(name)) {
      // Back in this version: the marks go.
      marks.forEach(unmark);
      if (marks.length > 0) unmarked.push(name);
      continue;
    }
    // One mark, naming the current version (an older generator left one per version).
    marks.slice(0, -1).forEach(unmark);
    const current = marks.at(-1);
    if (current && MARK.exec(text.slice(current.pos, current.end))![1] === opts.version) continue;
    if (current) {
      edits.push({ pos: current.pos, remove: current.end - current.pos, text: mark(opts.version) });
    } else {
      const start = node.getStart();
      const indent = start === node.getStartLinePos() ? "" : text.slice(lineStart(text, start), start);
      edits.push({
        pos: start,
        text: `${mark(opts.version)}${style.newline}${indent.trim() === "" ? indent : ""}`,
      });
    }
    markedRemoved.push(name);
  }

  const missing = [...opts.after]
    .filter(([name]) => !present.has(name) && !opts.before.has(name))
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  const added = missing.map(([name]) => name);
  if (missing.length > 0) {
    const { callee, edits: importEdits } = notImplementedCallee(sf, opts.importFrom, style);
    const q = style.quote;
    const stubs: NewProperty[] = missing.map(([name, method]) => ({
      comment: method.startsWith("notifications/")
        ? `// ${method}: new in protocol ${opts.version}; ignored until you write it.`
        : `// ${method}: new in protocol ${opts.version}; answers "method not found" until you write it.`,
      text: `${name}: ${callee}(${q}${method}${q})`,
    }));
    edits.push(...importEdits, ...appendProperties(object, stubs, style));
  }
  return { text: applyEdits(text, edits), added, markedRemoved, unmarked };
}
