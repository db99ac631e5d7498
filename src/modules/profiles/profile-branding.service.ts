import { createHash } from 'node:crypto';
import { Injectable, OnApplicationShutdown } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { IsNull, Repository } from 'typeorm';
import { isUuid } from '@/common/auth/auth.service';
import { ApiError } from '@/common/errors/api-error';
import type { Brand } from '@/common/hosted-pages/hosted-page';
import { AppConfig } from '@/config/config';
import { AcceptedMediaType, matchesSignature } from '@/modules/media/media-types';
import { PlatformError } from '@/modules/networks/kit/adapter';
import { downloadMedia, mediaAllowsPrivateUrls, SafeMediaFetch } from '@/modules/networks/kit/media-fetch';
import type { ProfileBrandingDto, ProfileBrandingInputDto } from './dto/profile.dto';
import { WorkspacesService } from '../workspaces/workspaces.service';
import { ProfileBranding, ProfileEntity } from './profile.entity';

/** Largest logo accepted. */
export const LOGO_MAX_BYTES = 512 * 1024;
const LOGO_TIMEOUT_MS = 10_000;
const LOGO_TYPES: AcceptedMediaType[] = ['image/png', 'image/jpeg', 'image/webp', 'image/gif'];

export interface FetchedLogo {
  bytes: Buffer;
  type: AcceptedMediaType;
  hash: string;
}

const EMPTY: ProfileBranding = { displayName: null, logoUrl: null, accentColor: null, supportUrl: null };

function logoProblem(message: string): ApiError<'invalid_request'> {
  return new ApiError('invalid_request', `branding.logoUrl: ${message}`, { field: 'branding.logoUrl' });
}

/** `/branding/<profileId>/logo?v=<hash>`: the logo's path on this service, versioned by its bytes. */
export function logoPath(profileId: string, hash: string): string {
  return `/branding/${profileId}/logo?v=${hash.slice(0, 16)}`;
}

/**
 * Branding of the hosted pages: validated and merged on PATCH, the logo fetched once (through
 * the SSRF-safe media agent, size- and signature-checked) and served from this service, so a
 * hosted page never loads anything from another host.
 */
@Injectable()
export class ProfileBrandingService implements OnApplicationShutdown {
  private readonly fetcher: SafeMediaFetch;
  private readonly allowHttp: boolean;

  constructor(
    @InjectRepository(ProfileEntity) private readonly profiles: Repository<ProfileEntity>,
    private readonly config: AppConfig,
    private readonly workspaces: WorkspacesService,
  ) {
    // Private hosts (and so plain http) only where media downloads allow them: sandbox or MEDIA_ALLOW_PRIVATE_URLS.
    this.allowHttp = mediaAllowsPrivateUrls(config);
    this.fetcher = new SafeMediaFetch(this.allowHttp);
  }

  async onApplicationShutdown(): Promise<void> {
    await this.fetcher.close();
  }

  /** The stored branding after applying `patch` (a merge patch; `null` clears). */
  merge(current: ProfileBranding | null, patch: ProfileBrandingInputDto | null): ProfileBranding | null {
    if (patch === null) return null;
    const next = { ...EMPTY, ...(current ?? {}) };
    for (const k of Object.keys(EMPTY) as (keyof ProfileBranding)[]) if (patch[k] !== undefined) next[k] = patch[k];
    return Object.values(next).every((v) => v === null) ? null : next;
  }

  /** Downloads and checks the logo at `url`; 400 naming `branding.logoUrl` for anything not usable. */
  async fetchLogo(url: string): Promise<FetchedLogo> {
    const protocol = new URL(url).protocol;
    if (protocol !== 'https:' && !(protocol === 'http:' && this.allowHttp))
      throw logoProblem('the logo must be at an https URL.');
    let fetched: { bytes: Uint8Array; contentType: string };
    try {
      fetched = await downloadMedia(
        {
          fetchMedia: this.fetcher.fetch,
          mediaLimits: { maxImageBytes: LOGO_MAX_BYTES, maxVideoBytes: LOGO_MAX_BYTES, timeoutMs: LOGO_TIMEOUT_MS },
        },
        url,
        'image',
      );
    } catch (err) {
      if (err instanceof PlatformError) throw logoProblem(err.message);
      throw err;
    }
    const bytes = Buffer.from(fetched.bytes);
    const type = LOGO_TYPES.find((t) => matchesSignature(t, bytes.subarray(0, 16)));
    if (!type) {
      const svg = fetched.contentType.includes('svg') || /<svg[\s>]/i.test(bytes.subarray(0, 1024).toString('latin1'));
      throw logoProblem(
        svg
          ? 'SVG logos are not accepted (an SVG can carry scripts); use a PNG, JPEG, WebP or GIF.'
          : `the file at ${url} is not a PNG, JPEG, WebP or GIF image.`,
      );
    }
    return { bytes, type, hash: createHash('sha256').update(bytes).digest('hex') };
  }

  toDto(p: ProfileEntity): ProfileBrandingDto {
    const b = { ...EMPTY, ...(p.branding ?? {}) };
    return {
      ...b,
      hostedLogoUrl: p.brandingLogoHash ? `${this.config.publicBaseUrl}${logoPath(p.id, p.brandingLogoHash)}` : null,
    };
  }

  /** What a hosted page of this profile shows: its branding, else the workspace's name. */
  async brandFor(workspaceId: string, profileId: string): Promise<Brand> {
    const [row] = await this.profiles.query<{ branding: ProfileBranding | null; hash: string | null }[]>(
      `SELECT p.branding, p.branding_logo_hash AS hash FROM profiles p WHERE p.id = $1 AND p.workspace_id = $2`,
      [profileId, workspaceId],
    );
    const workspace = row && !row.branding?.displayName ? await this.workspaces.nameOf(workspaceId) : null;
    if (!row) return { name: 'this service', logoPath: null, accentColor: null, supportUrl: null };
    const b = row.branding ?? EMPTY;
    return {
      name: b.displayName ?? workspace ?? 'this service',
      logoPath: row.hash ? logoPath(profileId, row.hash) : null,
      accentColor: b.accentColor,
      supportUrl: b.supportUrl,
    };
  }

  /** The stored logo of a live profile, or null. */
  async logo(profileId: string): Promise<FetchedLogo | null> {
    if (!isUuid(profileId)) return null;
    const row = await this.profiles.findOne({
      where: { id: profileId, deletedAt: IsNull() },
      select: { id: true, brandingLogo: true, brandingLogoType: true, brandingLogoHash: true },
    });
    if (!row?.brandingLogo || !row.brandingLogoType || !row.brandingLogoHash) return null;
    return { bytes: row.brandingLogo, type: row.brandingLogoType as AcceptedMediaType, hash: row.brandingLogoHash };
  }
}
