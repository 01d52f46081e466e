export { createTestDatabase, type TestDatabase } from "./database.ts";
export { resolveTestServices, type TestServices } from "./services.ts";
