/** The TypeScript sources under a folder of the repository, for tests that read the code itself. */
import fs from 'node:fs';
import path from 'node:path';

/** Absolute paths of every `.ts` file under `dir` (relative to the repository root), sorted. */
export function sourceFiles(dir: string): string[] {
  return fs
    .readdirSync(path.resolve(dir), { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith('.ts'))
    .map((entry) => path.join(entry.parentPath, entry.name))
    .sort();
}

/** `import`/`export … from` (type-only ones too), bare `import '…'`, and `import('…')`, of relative paths. */
const IMPORTS =
  /^\s*(?:import|export)\s[^;]*?\sfrom\s+'(\.[^']+)'|^\s*import\s+'(\.[^']+)'|\bimport\(\s*'(\.[^']+)'\s*\)/gm;

export interface ImportEdge {
  to: string;
  /** `await import(...)`: loaded when the code runs, not when the module loads. */
  dynamic: boolean;
}

/** Every `.ts` file under `dir` and the files of ours it imports, type-only imports included. */
export function importGraph(dir: string): Map<string, ImportEdge[]> {
  const graph = new Map<string, ImportEdge[]>();
  for (const file of sourceFiles(dir)) {
    const edges: ImportEdge[] = [];
    for (const match of fs.readFileSync(file, 'utf8').matchAll(IMPORTS)) {
      const to = path.resolve(path.dirname(file), match[1] ?? match[2] ?? match[3]);
      if (to.endsWith('.ts') && fs.existsSync(to)) edges.push({ to, dynamic: match[3] !== undefined });
    }
    graph.set(file, edges);
  }
  return graph;
}

/** The strongly connected components with more than one file (or a file importing itself): the import cycles. */
export function importCycles(graph: Map<string, ImportEdge[]>): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const cycles: string[][] = [];
  const visit = (file: string) => {
    index.set(file, next);
    low.set(file, next++);
    stack.push(file);
    onStack.add(file);
    for (const { to } of graph.get(file) ?? []) {
      if (!index.has(to)) {
        visit(to);
        low.set(file, Math.min(low.get(file)!, low.get(to)!));
      } else if (onStack.has(to)) low.set(file, Math.min(low.get(file)!, index.get(to)!));
    }
    if (low.get(file) !== index.get(file)) return;
    const component: string[] = [];
    let member: string;
    do {
      member = stack.pop()!;
      onStack.delete(member);
      component.push(member);
    } while (member !== file);
    if (component.length > 1 || (graph.get(file) ?? []).some((e) => e.to === file)) cycles.push(component.sort());
  };
  for (const file of graph.keys()) if (!index.has(file)) visit(file);
  return cycles;
}
