export { PACKAGE_VERSION as GENERATOR_VERSION } from "../../schema/package.js";
