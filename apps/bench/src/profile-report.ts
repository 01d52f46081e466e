// node profile-report.ts DIR_OR_FILE [TOP]: top self-time functions of `node --cpu-prof` output.
import { formatSelfTimes, latestProfile, readProfile, selfTimes } from "./profile-summary.ts";

const [target, top] = process.argv.slice(2);
if (!target) {
  process.stderr.write("usage: profile-report.ts DIR_OR_FILE [TOP]\n");
  process.exit(2);
}
const file = await latestProfile(target);
process.stdout.write(`${file}\n\n${formatSelfTimes(selfTimes(await readProfile(file)), Number(top ?? 30))}\n`);
