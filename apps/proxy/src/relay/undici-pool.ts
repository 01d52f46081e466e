import type { Pool as UndiciPool } from "undici";
// undici's connection pool and its `request` API, imported from their own files (undici has no
// exports map; its version is pinned by the lockfile) rather than from its index: the index also
// loads fetch, WebSocket, EventSource, the mocks and the caches, and its fetch reads the web
// globals (ReadableStream, File) at load, which makes Node load its web streams. The proxy uses
// none of them. Live heap after loading: 2.4 MB against the index's 5.1.
import Dispatcher from "undici/lib/dispatcher/dispatcher.js";
import PoolClass from "undici/lib/dispatcher/pool.js";
import api from "undici/lib/api/index.js";

// What undici's index does: `request`, `stream`, `pipeline`, ... on every dispatcher.
Object.assign((Dispatcher as { prototype: object }).prototype, api);

export const Pool = PoolClass as typeof UndiciPool;
export type Pool = UndiciPool;
