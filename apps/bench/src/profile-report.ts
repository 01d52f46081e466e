// node profile-report.ts DIR_OR_FILE [TOP]: top self-time functions of `node --cpu-prof` output.
import { readdir, stat } from "node:fs/promises";
import { join } from "node:path";
import { formatSelfTimes, readProfile, selfTimes } from "./profile-summary.ts";

const [target, top] = process.argv.slice(2);
if (!target) {
  process.stderr.write("usage: profile-report.ts DIR_OR_FILE [TOP]\n");
  process.exit(2);
}
let file = target;
if ((await stat(target)).isDirectory()) {
  const profiles = (await readdir(target)).filter((name) => name.endsWith(".cpuprofile")).sort();
  if (profiles.length === 0) throw new Error(`no .cpuprofile in ${target}`);
  file = join(target, profiles.at(-1)!);
}
process.stdout.write(`${file}\n\n${formatSelfTimes(selfTimes(await readProfile(file)), Number(top ?? 30))}\n`);
