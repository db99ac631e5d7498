import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';

/** Workspaces (the table is this module's). */
@Injectable()
export class WorkspacesService {
  constructor(private readonly ds: DataSource) {}

  /** The workspace's name, or null when there is none. */
  async nameOf(workspaceId: string): Promise<string | null> {
    const [row] = await this.ds.query<{ name: string }[]>('SELECT name FROM workspaces WHERE id = $1', [workspaceId]);
    return row?.name ?? null;
  }
}
