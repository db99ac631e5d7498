import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { DataSource, EntityManager, In, IsNull, Repository } from 'typeorm';
import { AuthContext, actorOf } from '@/common/auth/auth-context';
import { AuthCache } from '@/common/auth/auth-cache';
import { isUuid } from '@/common/auth/auth.service';
import { ApiError } from '@/common/errors/api-error';
import { OutboxService } from '@/common/outbox/outbox.service';
import { paged, pageWindow } from '@/common/pagination/pagination';
import { AccountsService } from '../accounts/accounts.service';
import { EntitlementsService } from '../plans/entitlements.service';
import {
  CreateProfileDto,
  DeletedProfileDto,
  ListProfilesQueryDto,
  ProfileDto,
  ProfileListDto,
  ProfileResponseDto,
  UpdateProfileDto,
} from './dto/profile.dto';
import { FetchedLogo, ProfileBrandingService } from './profile-branding.service';
import { ProfileEntity } from './profile.entity';
import { saveProfile } from './save-profile';
import { plainQuery } from '@/database/plain-query';

export function toProfileDto(p: ProfileEntity, branding: ProfileBrandingService): ProfileDto {
  return {
    id: p.id,
    name: p.name,
    description: p.description,
    externalId: p.externalId,
    branding: branding.toDto(p),
    createdAt: p.createdAt.toISOString(),
    updatedAt: p.updatedAt.toISOString(),
  };
}

@Injectable()
export class ProfilesService {
  constructor(
    @InjectRepository(ProfileEntity) private readonly profiles: Repository<ProfileEntity>,
    private readonly dataSource: DataSource,
    private readonly outbox: OutboxService,
    private readonly entitlements: EntitlementsService,
    private readonly authCache: AuthCache,
    private readonly accounts: AccountsService,
    private readonly branding: ProfileBrandingService,
  ) {}

  private dto(p: ProfileEntity): ProfileDto {
    return toProfileDto(p, this.branding);
  }

  /** The ids among `ids` that are live profiles of the workspace. */
  async existingIds(m: EntityManager, workspaceId: string, ids: string[]): Promise<Set<string>> {
    const rows = await m.query<{ id: string }[]>(
      'SELECT id FROM profiles WHERE workspace_id = $1 AND deleted_at IS NULL AND id = ANY($2::uuid[])',
      [workspaceId, ids],
    );
    return new Set(rows.map((r) => r.id));
  }

  /** True when the profile is live; FOR SHARE holds off its deletion until the caller's transaction ends. */
  async holdLive(m: EntityManager, id: string): Promise<boolean> {
    const live = await m.query<unknown[]>(`SELECT 1 FROM profiles WHERE id = $1 AND deleted_at IS NULL FOR SHARE`, [
      id,
    ]);
    return live.length > 0;
  }

  async list(auth: AuthContext, query: ListProfilesQueryDto): Promise<ProfileListDto> {
    const window = pageWindow(query);
    const where = {
      workspaceId: auth.workspaceId,
      deletedAt: IsNull(),
      ...(auth.profileIds ? { id: In(auth.profileIds) } : {}),
    };
    const [rows, total] = await this.profiles.findAndCount({
      where,
      order: { createdAt: 'ASC', id: 'ASC' },
      skip: window.offset,
      take: window.limit,
    });
    return { profiles: rows.map((p) => this.dto(p)), ...paged(window, total) };
  }

  async current(auth: AuthContext): Promise<ProfileResponseDto> {
    return { profile: await this.readReachable(auth, auth.profileId) };
  }

  async get(auth: AuthContext, id: string): Promise<ProfileResponseDto> {
    return { profile: await this.readReachable(auth, id) };
  }

  async create(auth: AuthContext, dto: CreateProfileDto): Promise<ProfileResponseDto> {
    if (auth.profileIds)
      throw new ApiError('profile_not_accessible', 'A key restricted to profiles cannot create profiles.');
    const profile = await this.dataSource.transaction(async (m) => {
      // Serialised per workspace so the quota check cannot be raced.
      await this.entitlements.assertQuota(
        auth.plan,
        'profiles',
        'profiles',
        () => m.count(ProfileEntity, { where: { workspaceId: auth.workspaceId } }),
        { manager: m, key: `profiles:${auth.workspaceId}` },
      );
      const saved = await saveProfile(m, {
        workspaceId: auth.workspaceId,
        name: dto.name,
        description: dto.description ?? null,
        externalId: dto.externalId ?? null,
      });
      await this.outbox.record(m, {
        workspaceId: auth.workspaceId,
        profileId: saved.id,
        type: 'profile.created',
        actor: actorOf(auth),
        data: { profile: this.dto(saved) },
      });
      return saved;
    });
    return { profile: this.dto(profile) };
  }

  async update(auth: AuthContext, id: string, dto: UpdateProfileDto): Promise<ProfileResponseDto> {
    // The logo is fetched before the transaction (network calls never hold a row lock).
    const logoUrl = dto.branding?.logoUrl;
    let logo: FetchedLogo | null = null;
    if (typeof logoUrl === 'string') {
      const before = await this.findReachable(auth, id);
      if (before.branding?.logoUrl !== logoUrl || !before.brandingLogoHash)
        logo = await this.branding.fetchLogo(logoUrl);
    }
    const profile = await this.dataSource.transaction(async (m) => {
      const found = await this.findReachable(auth, id, m.getRepository(ProfileEntity), true);
      if (dto.name !== undefined) found.name = dto.name;
      if (dto.description !== undefined) found.description = dto.description;
      if (dto.externalId !== undefined) found.externalId = dto.externalId;
      if (dto.branding !== undefined) {
        found.branding = this.branding.merge(found.branding, dto.branding);
        if (logo)
          Object.assign(found, { brandingLogo: logo.bytes, brandingLogoType: logo.type, brandingLogoHash: logo.hash });
        else if (!found.branding?.logoUrl)
          Object.assign(found, { brandingLogo: null, brandingLogoType: null, brandingLogoHash: null });
      }
      const saved = await m.save(found);
      await this.outbox.record(m, {
        workspaceId: auth.workspaceId,
        profileId: saved.id,
        type: 'profile.updated',
        actor: actorOf(auth),
        data: { profile: this.dto(saved), changed: Object.keys(dto).filter((k) => k !== 'profileId') },
      });
      return saved;
    });
    return { profile: this.dto(profile) };
  }

  async remove(auth: AuthContext, id: string): Promise<DeletedProfileDto> {
    await this.dataSource.transaction(async (m) => {
      const found = await this.findReachable(auth, id, m.getRepository(ProfileEntity), true);
      const connected = await this.accounts.countConnected(m, found.id);
      if (connected > 0)
        throw new ApiError(
          'profile_has_connected_accounts',
          `Profile '${id}' still has ${connected} connected account(s); disconnect them first.`,
        );
      await m.softDelete(ProfileEntity, { id: found.id });
      await this.outbox.record(m, {
        workspaceId: auth.workspaceId,
        profileId: found.id,
        type: 'profile.deleted',
        actor: actorOf(auth),
        data: { id: found.id },
      });
    });
    // Keys stop reaching the profile in every process (AuthCache caches reachable profiles).
    await this.authCache.changed(`profile:${id}`);
    return { id, deleted: true };
  }

  /** A profile of the caller's workspace within the key's scope; 404 otherwise (403 if in the workspace but out of scope). */
  /**
   * findReachable for a read: one plain query straight into the DTO (no query building or entity
   * hydration: GET /v1/profile is the cheapest authenticated request and runs on every page load).
   */
  private async readReachable(auth: AuthContext, id: string): Promise<ProfileDto> {
    if (!isUuid(id)) throw ApiError.notFound('profile', id);
    const [row] = await plainQuery<
      Pick<ProfileEntity, 'id' | 'name' | 'description' | 'branding'> & {
        external_id: string | null;
        branding_logo_type: string | null;
        branding_logo_hash: string | null;
        created_at: Date;
        updated_at: Date;
      }
    >(
      this.dataSource,
      `SELECT id, name, description, external_id, branding, branding_logo_type, branding_logo_hash, created_at, updated_at
         FROM profiles WHERE id = $1 AND workspace_id = $2 AND deleted_at IS NULL`,
      [id, auth.workspaceId],
    );
    if (!row) throw ApiError.notFound('profile', id);
    if (auth.profileIds && !auth.profileIds.includes(id))
      throw new ApiError('profile_not_accessible', `Profile '${id}' is not accessible with this API key.`);
    return this.dto(
      Object.assign(new ProfileEntity(), {
        id: row.id,
        workspaceId: auth.workspaceId,
        name: row.name,
        description: row.description,
        externalId: row.external_id,
        branding: row.branding,
        brandingLogoType: row.branding_logo_type,
        brandingLogoHash: row.branding_logo_hash,
        createdAt: row.created_at,
        updatedAt: row.updated_at,
        deletedAt: null,
      }),
    );
  }

  private async findReachable(
    auth: AuthContext,
    id: string,
    repo = this.profiles,
    lock = false,
  ): Promise<ProfileEntity> {
    if (!isUuid(id)) throw ApiError.notFound('profile', id);
    const found = await repo.findOne({
      where: { id, workspaceId: auth.workspaceId, deletedAt: IsNull() },
      ...(lock ? { lock: { mode: 'pessimistic_write' as const } } : {}),
    });
    if (!found) throw ApiError.notFound('profile', id);
    if (auth.profileIds && !auth.profileIds.includes(id))
      throw new ApiError('profile_not_accessible', `Profile '${id}' is not accessible with this API key.`);
    return found;
  }
}
