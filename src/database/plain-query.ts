import type { Pool } from 'pg';
import type { DataSource } from 'typeorm';

/**
 * A read through the data source's own `pg` pool, without TypeORM's query runner (connect,
 * broadcast, release) around it: for the hottest reads, whose rows are mapped by hand. Errors are
 * `pg`'s own (same `code`s the error envelope recognises).
 */
export async function plainQuery<T>(ds: DataSource, sql: string, params: unknown[]): Promise<T[]> {
  const pool = (ds.driver as unknown as { master: Pool }).master;
  return (await pool.query(sql, params)).rows as T[];
}

/** Positional parameters for hand-written SQL: `bind(value)` appends the value and answers its `$n`. */
export function sqlParams(...initial: unknown[]): { values: unknown[]; bind: (value: unknown) => string } {
  const values = [...initial];
  return { values, bind: (value) => `$${values.push(value)}` };
}
