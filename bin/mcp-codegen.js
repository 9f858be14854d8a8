#!/usr/bin/env node
import { run } from "../dist/generator/cli/index.js";

await run(process.argv);
