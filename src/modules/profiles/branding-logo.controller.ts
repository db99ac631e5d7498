import { Controller, Get, Param, Query, Res } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { Response } from 'express';
import { Public } from '@/common/auth/decorators';
import { ApiError } from '@/common/errors/api-error';
import { ProfileBrandingService } from './profile-branding.service';

/** The logo of a profile's branding, served from this host for the hosted pages (public, like the pages). */
@ApiExcludeController()
@Controller('branding')
export class BrandingLogoController {
  constructor(private readonly branding: ProfileBrandingService) {}

  @Get(':profileId/logo')
  @Public()
  async logo(@Param('profileId') profileId: string, @Query('v') v: unknown, @Res() res: Response): Promise<void> {
    const logo = await this.branding.logo(profileId);
    if (!logo) throw ApiError.notFound('logo', profileId);
    const current = typeof v === 'string' && v.length >= 8 && logo.hash.startsWith(v);
    res.setHeader('Content-Type', logo.type);
    res.setHeader('X-Content-Type-Options', 'nosniff');
    res.setHeader('Content-Security-Policy', "default-src 'none'; sandbox");
    res.setHeader('Cross-Origin-Resource-Policy', 'same-origin');
    res.setHeader('Cache-Control', current ? 'public, max-age=31536000, immutable' : 'public, max-age=300');
    res.status(200).end(logo.bytes);
  }
}
