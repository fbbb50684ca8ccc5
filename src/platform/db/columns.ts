/** `a, b` with alias `p` → `p.a, p.b`: a store's column list, qualified for a statement that joins. */
export const qualifiedColumns = (columns: string, alias: string): string => columns.replace(/(\w+)/g, `${alias}.$1`);
