// What the scale proof reads from PostgreSQL: the usage ledger once the workers have drained the
// queue, and how many connections the apps held on the database.
import pg from "pg";

export interface LedgerRow {
  request_id: string;
  input_tokens: number;
  output_tokens: number;
  status: string;
  estimated: boolean;
}

export interface Ledger {
  rows: LedgerRow[];
  /** Sums over usage_aggregates, which the worker updates once per event. */
  aggregates: { requests: number; input: number; output: number };
}

/** This proof's own connections, left out of the count of the apps' connections. */
const READER = "scale-proof-reader";

/** Waits until the ledger holds `expected` rows (or 20 s pass), lets late duplicates land, reads it. */
export async function readLedger(databaseUrl: string, expected: number): Promise<Ledger> {
  const client = new pg.Client({ connectionString: databaseUrl, application_name: READER });
  await client.connect();
  try {
    const count = async () => Number((await client.query<{ count: string }>("SELECT count(*) FROM usage_records")).rows[0]!.count);
    const deadline = Date.now() + 20_000;
    while (Date.now() < deadline && (await count()) < expected) await new Promise((resolve) => setTimeout(resolve, 100));
    // Anything counted twice would land now.
    await new Promise((resolve) => setTimeout(resolve, 500));
    const rows = (await client.query<LedgerRow>("SELECT request_id, input_tokens::float8 AS input_tokens, output_tokens::float8 AS output_tokens, status, estimated FROM usage_records")).rows;
    const aggregates = (await client.query("SELECT sum(requests)::int AS requests, sum(input_tokens)::int AS input, sum(output_tokens)::int AS output FROM usage_aggregates")).rows[0];
    return { rows, aggregates };
  } finally {
    await client.end();
  }
}

/** Samples the connections on the database every 50 ms until stopped; `stop` gives the peak. */
export async function sampleConnections(databaseUrl: string): Promise<{ stop(): Promise<number> }> {
  const database = new URL(databaseUrl).pathname.slice(1);
  const client = new pg.Client({ connectionString: databaseUrl.replace(/\/[^/]*$/, "/postgres"), application_name: READER });
  await client.connect();
  let peak = 0;
  const timer = setInterval(() => {
    void client
      .query<{ count: string }>("SELECT count(*) FROM pg_stat_activity WHERE datname = $1 AND application_name <> $2", [database, READER])
      .then((result) => (peak = Math.max(peak, Number(result.rows[0]!.count))), () => undefined);
  }, 50);
  return {
    async stop() {
      clearInterval(timer);
      await client.end();
      return peak;
    },
  };
}
