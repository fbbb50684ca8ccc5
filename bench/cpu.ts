/**
 * CPU time of the processes serving a run, from /proc (Linux). Throughput on a shared, noisy machine
 * swings with the neighbours; CPU time per request moves much less, so the report shows both.
 */
import fs from 'node:fs';

/** Linux reports utime and stime in clock ticks; 100 per second on every mainstream kernel configuration. */
const TICKS_PER_SECOND = 100;

/** Seconds of CPU (user + system) each process has used so far; processes that are gone count as 0. */
export function cpuSeconds(pids: number[]): Map<number, number> {
  const used = new Map<number, number>();
  for (const pid of pids) {
    try {
      const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
      // Fields after the command name, which may itself contain spaces and parentheses.
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      used.set(pid, (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND);
    } catch {
      used.set(pid, 0);
    }
  }
  return used;
}

/** CPU seconds the processes used between two readings; a process first seen in `after` counts in full. */
export function cpuUsedBetween(before: Map<number, number>, after: Map<number, number>): number {
  let total = 0;
  for (const [pid, seconds] of after) total += seconds - (before.get(pid) ?? 0);
  return total;
}
