/** The names a contract's items take in generated code (the rule is mangle.ts's). */

import { pascalCase, typeNamesOf } from "../util/mangle.js";

/** `get_user` → `GetUser`; the form a name takes inside type names, when no other name shares it. */
export const typeNameOf = pascalCase;

export { typeNamesOf };
