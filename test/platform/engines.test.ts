// suite: database-independent
/**
 * The Node.js versions package.json admits are ones every installed package admits: a newcomer on a version
 * inside our `engines` range must not meet an EBADENGINE warning, nor a dependency that refuses to run.
 * When a dependency raises its floor, this fails and names it: raise ours, or pin the dependency through
 * `overrides` to a release that still supports our range.
 */
import { it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import semver from 'semver';

interface LockedPackage {
  version?: string;
  engines?: { node?: string } | string[];
}

const read = (file: string) => JSON.parse(fs.readFileSync(new URL(`../../${file}`, import.meta.url), 'utf8'));

it("every locked package's engines.node admits every Node.js version our engines range admits", () => {
  const ours: string = read('package.json').engines.node;
  assert.ok(semver.validRange(ours), `package.json engines.node is not a range: ${ours}`);
  assert.ok(semver.satisfies(process.version, ours), `this Node.js ${process.version} is outside ${ours}`);

  const packages: Record<string, LockedPackage> = read('package-lock.json').packages;
  const narrower: string[] = [];
  let checked = 0;
  for (const [where, locked] of Object.entries(packages)) {
    // Old packages wrote engines as an array of strings, which npm never enforced.
    const theirs = !where || Array.isArray(locked.engines) ? undefined : locked.engines?.node;
    if (!theirs) continue;
    checked += 1;
    if (!semver.subset(ours, theirs)) narrower.push(`${where}@${locked.version}: ${theirs}`);
  }
  assert.ok(checked > 20, `only ${checked} locked packages declare engines: is package-lock.json complete?`);
  assert.deepEqual(narrower, [], `packages whose engines.node excludes part of ${ours}`);
});
