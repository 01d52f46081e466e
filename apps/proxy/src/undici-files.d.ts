// The undici files relay/undici-pool.ts imports by path (undici's types cover its index only).
declare module "undici/lib/dispatcher/dispatcher.js" {
  const Dispatcher: unknown;
  export default Dispatcher;
}
declare module "undici/lib/dispatcher/pool.js" {
  const Pool: unknown;
  export default Pool;
}
declare module "undici/lib/api/index.js" {
  const api: Record<string, unknown>;
  export default api;
}
