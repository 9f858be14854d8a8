/**
 * The fuzz campaign over stdio: 10^5 frames (FUZZ_FRAMES; `npm run fuzz`: 10^6) from fast-check into a
 * real child process serving generated 2026-07-28 handlers to a 2025-11-25 session. Checks: every
 * request with a readable id answered exactly once with the code (or exact answer) its kind decides,
 * never -32603, the owed id-null answers and nothing else; the process alive; no stack trace on stderr;
 * Object.prototype untouched; the heap after a forced gc back within 8 MB of its baseline.
 */
import type { ChildProcessWithoutNullStreams } from "node:child_process";
import { afterAll, describe, expect, it } from "vitest";
import { bytesOf, frameCount, frames } from "./frames.js";
import { type Answer, Ledger, STACK_LINE } from "./ledger.js";
import { spawnTarget } from "./target.js";

const FRAMES = frameCount(100_000);
const CHUNK = 500;
const SEED = 0x5eed;
const HEAP_SLACK = 8 * 2 ** 20;
const WAIT_MS = 20_000;

const children: ChildProcessWithoutNullStreams[] = [];
afterAll(() => {
  for (const child of children) child.kill("SIGKILL");
});

describe(`fuzz: stdio, ${FRAMES} frames`, () => {
  it(
    "answers every request exactly once with the right code, stays up, logs no stack, keeps its heap",
    async () => {
      const child = spawnTarget(["--stdio"]);
      children.push(child);
      let stderr = "";
      child.stderr.setEncoding("utf8").on("data", (c: string) => {
        stderr = (stderr + c).slice(-100_000);
      });
      let exited: string | undefined;
      child.once("exit", (code, signal) => {
        exited = `exited (${signal ?? code})`;
      });

      const ledger = new Ledger();
      const control = new Map<string, Answer>();
      let pending = "";
      child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
        const lines = (pending + chunk).split("\n");
        pending = lines.pop() ?? "";
        for (const line of lines) {
          let answer: Answer;
          try {
            answer = JSON.parse(line) as Answer;
          } catch {
            ledger.problem(`not JSON on stdout: ${line.slice(0, 200)}`);
            continue;
          }
          if (typeof answer.id === "string" && answer.id.startsWith("ctl-")) control.set(answer.id, answer);
          else ledger.record(answer);
        }
      });
      const write = (data: string | Uint8Array) =>
        new Promise<void>((resolve, reject) => child.stdin.write(data, (e) => (e ? reject(e) : resolve())));
      let ctl = 0;
      /** A control request; resolves with its answer (everything written before it has been read). */
      const ask = async (method: string, params: object): Promise<Answer> => {
        const id = `ctl-${ctl++}`;
        await write(`${JSON.stringify({ jsonrpc: "2.0", id, method, params })}\n`);
        const deadline = Date.now() + WAIT_MS;
        while (!control.has(id)) {
          if (exited) throw new Error(`the server ${exited}: ${stderr.slice(-2000)}`);
          if (Date.now() > deadline) throw new Error(`no answer to ${method} within ${WAIT_MS} ms`);
          await new Promise((r) => setTimeout(r, 5));
        }
        return control.get(id)!;
      };
      const heap = async () => {
        const answer = (await ask("tools/call", { name: "memory", arguments: {} })) as {
          result?: { content?: { text?: string }[] };
        };
        return Number(answer.result?.content?.[0]?.text);
      };

      const init = await ask("initialize", {
        protocolVersion: "2025-11-25",
        capabilities: {},
        clientInfo: { name: "fuzz", version: "1" },
      });
      expect(init).toHaveProperty("result");
      await write('{"jsonrpc":"2.0","method":"notifications/initialized"}\n');

      const started = Date.now();
      let baseline = 0;
      for (let first = 0; first < FRAMES; first += CHUNK) {
        const batch = frames(Math.min(CHUNK, FRAMES - first), SEED, first);
        const parts: Uint8Array[] = [];
        for (const frame of batch) {
          ledger.expect(frame);
          parts.push(bytesOf(frame.body), Uint8Array.of(0x0a));
        }
        await write(Buffer.concat(parts));
        await ask("ping", {}); // a barrier: what was written before it has been read and (sync handlers) answered
        if (first === CHUNK * 4) baseline = await heap(); // after a warm-up
      }
      // Answers still on their way (none should be: every handler answers synchronously).
      const deadline = Date.now() + 2000;
      while (ledger.missing().length > 0 && Date.now() < deadline)
        await new Promise((r) => setTimeout(r, 20));
      const after = await heap();
      // Whatever the frames held (own `__proto__` keys among them), Object.prototype is as it started.
      const pollution = (await ask("tools/call", { name: "polluted", arguments: {} })) as {
        result?: { content?: { text?: string }[] };
      };
      const seconds = (Date.now() - started) / 1000;
      console.info(
        `fuzz stdio: ${ledger.frames} frames, ${ledger.answers} answers in ${seconds.toFixed(1)} s; ` +
          `heap after gc ${(baseline / 2 ** 20).toFixed(1)} → ${(after / 2 ** 20).toFixed(1)} MB`,
      );
      expect(ledger.verdict()).toEqual([]);
      expect(pollution.result?.content?.[0]?.text).toBe("clean");
      expect(ledger.frames).toBe(FRAMES);
      expect(exited).toBeUndefined();
      expect(stderr).not.toMatch(STACK_LINE);
      expect(after - baseline).toBeLessThan(HEAP_SLACK);
      child.stdin.end();
    },
    Math.max(600_000, FRAMES),
  );
});
