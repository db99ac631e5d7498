import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';

/** The users of a workspace (the table is this module's). */
@Injectable()
export class UsersService {
  /** The ids among `ids` that are users of the workspace. */
  async existingIds(m: EntityManager, workspaceId: string, ids: string[]): Promise<Set<string>> {
    const rows = await m.query<{ id: string }[]>(
      'SELECT id FROM users WHERE workspace_id = $1 AND id = ANY($2::uuid[])',
      [workspaceId, ids],
    );
    return new Set(rows.map((r) => r.id));
  }
}
