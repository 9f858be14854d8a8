import pkg from "../package.json" with { type: "json" };

/** The generator's own version, named in every generated file's header. */
export const GENERATOR_VERSION: string = pkg.version;
