import type { ObjectLiteral, SelectQueryBuilder } from 'typeorm';
import { WorkspaceEntity } from './workspace.entity';

/**
 * The workspaces module's part of a one-query read that needs a row's workspace (authentication's
 * key lookup, on every uncached request): joins the workspace `on` the given condition and maps it
 * onto `property` (`'<alias>.<field>'`), so the caller needs no second round trip.
 */
export function joinWorkspace<T extends ObjectLiteral>(
  qb: SelectQueryBuilder<T>,
  property: string,
  on: (workspace: string) => string,
  alias = 'w',
): SelectQueryBuilder<T> {
  return qb.innerJoinAndMapOne(property, WorkspaceEntity, alias, on(alias));
}
