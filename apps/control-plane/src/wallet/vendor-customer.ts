import { GatewayError } from "@gateway/contracts";
import type { Customer, Prisma } from "@gateway/db";
import { isCustomerId } from "./wallet-ids.ts";

type CustomerReader = Pick<Prisma.TransactionClient, "customer">;

/** One of the vendor's customers; another vendor's, like a missing one, is a 404. */
export async function findVendorCustomer(prisma: CustomerReader, vendorId: string, id: string): Promise<Customer> {
  const row = isCustomerId(id) ? await prisma.customer.findFirst({ where: { id, vendorId } }) : null;
  if (!row) throw new GatewayError("not_found", `No customer with id '${id.slice(0, 80)}'.`, { param: "id" });
  return row;
}
