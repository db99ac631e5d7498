import { Global, Injectable, Module } from '@nestjs/common';
import { InjectRepository, TypeOrmModule } from '@nestjs/typeorm';
import { Repository } from 'typeorm';
import { AuthenticatedKey, KEY_LOOKUP, KeyLookup } from '@/common/auth/auth-lookup';
import { joinWorkspace } from '@/modules/workspaces/workspace-join';
import type { WorkspaceEntity } from '@/modules/workspaces/workspace.entity';
import { ApiKeyEntity } from './api-key.entity';

/**
 * Authentication's read of a key: the key and its workspace's plan in one query (every uncached
 * request), the workspace's part joined by the workspaces module (joinWorkspace).
 */
@Injectable()
export class ApiKeyLookup implements KeyLookup {
  constructor(@InjectRepository(ApiKeyEntity) private readonly keys: Repository<ApiKeyEntity>) {}

  async byHash(hash: string): Promise<AuthenticatedKey | null> {
    const key = await joinWorkspace(this.keys.createQueryBuilder('k'), 'k.workspace', (w) => `${w}.id = k.workspace_id`)
      .where('k.key_hash = :hash', { hash })
      .getOne();
    if (!key) return null;
    const { workspace, ...rest } = key as ApiKeyEntity & { workspace: WorkspaceEntity };
    return { key: Object.assign(new ApiKeyEntity(), rest), workspace };
  }

  async touch(keyId: string, at: Date): Promise<void> {
    await this.keys.update({ id: keyId }, { lastUsedAt: at });
  }
}

/** Provides KEY_LOOKUP to the (global) auth module. */
@Global()
@Module({
  imports: [TypeOrmModule.forFeature([ApiKeyEntity])],
  providers: [{ provide: KEY_LOOKUP, useClass: ApiKeyLookup }],
  exports: [KEY_LOOKUP],
})
export class KeyLookupModule {}
