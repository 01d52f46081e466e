import type { Queue } from "bullmq";

export interface BillingQueueCounts {
  waiting: number;
  active: number;
  delayed: number;
  failed: number;
}

/**
 * The billing queue's backlog: waiting and delayed (retries) should drain, active is in flight,
 * failed holds the jobs no retry could fix and needs a human.
 */
export async function billingQueueCounts(queue: Queue): Promise<BillingQueueCounts> {
  const counts = await queue.getJobCounts("waiting", "active", "delayed", "failed");
  return { waiting: counts.waiting ?? 0, active: counts.active ?? 0, delayed: counts.delayed ?? 0, failed: counts.failed ?? 0 };
}
