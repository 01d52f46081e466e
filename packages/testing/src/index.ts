export { createTestDatabase, type TestDatabase } from "./database.ts";
export { resolveTestServices, type TestServices } from "./services.ts";
export { TestRedis } from "./test-redis.ts";
export { startPrivateRedis, type PrivateRedis, type PrivateRedisOptions } from "./private-redis.ts";
export { startPrivatePostgres, type PrivatePostgres } from "./private-postgres.ts";
export { startRedisCluster, startRedisSentinel, type LocalRedisTopology, type RedisNodeAddress } from "./redis-topologies.ts";
export { freePort } from "./processes.ts";
export { startAppProcess, stopProcess, type AppProcess } from "./app-process.ts";
