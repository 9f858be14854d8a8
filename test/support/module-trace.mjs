// Loaded with `node --import`: appends the URL of every module the process resolves, by `import` or by
// `require`, to the file $MODULE_TRACE_FILE (one per line), so a test can see what a command loaded.
import { appendFileSync } from "node:fs";
import { registerHooks } from "node:module";

const file = process.env.MODULE_TRACE_FILE;
if (file)
  registerHooks({
    resolve(specifier, context, nextResolve) {
      const result = nextResolve(specifier, context);
      appendFileSync(file, `${result.url}\n`);
      return result;
    },
  });
