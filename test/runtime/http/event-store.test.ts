/** The in-memory EventStore against the contract every EventStore meets (backends run it too). */
import { InMemoryEventStore } from "@mcp-codegen/runtime/http";
import { eventStoreContract } from "../../fixtures/stores/event-store-contract.js";

eventStoreContract("InMemoryEventStore", {
  make: (options) => new InMemoryEventStore(options),
  lengthSlack: 0,
});
