/** Migrations in order. `npm run db:generate -- <Name>` appends here. */
import { Initial1795215858211 } from './1795215858211-Initial';
// @generated-imports

export const MIGRATIONS: Function[] = [
  Initial1795215858211,
  // @generated-list
];
