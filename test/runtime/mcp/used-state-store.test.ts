/** The in-memory UsedStateStore against the contract every UsedStateStore meets (backends run it too). */
import { InMemoryUsedStateStore } from "@mcp-codegen/runtime/server";
import { usedStateStoreContract } from "../../fixtures/stores/used-state-store-contract.js";

usedStateStoreContract("InMemoryUsedStateStore", () => new InMemoryUsedStateStore());
