import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AppConfig } from '@/config/config';
import { ProfilesModule } from '../profiles/profiles.module';
import { MediaEntity } from './entities/media.entity';
import { UploadSessionEntity } from './entities/upload-session.entity';
import { MediaFilesController } from './media-files.controller';
import { MediaController } from './media.controller';
import { MediaService } from './media.service';
import { LocalMediaStorage } from './storage/local-media-storage';
import { MEDIA_STORAGE, MediaStorage } from './storage/media-storage';
import { S3MediaStorage } from './storage/s3-media-storage';
import { UploadSigner } from './storage/upload-signature';
import { UploadSessionPagesController } from './upload-session-pages.controller';
import { UploadSessionsService } from './upload-sessions.service';

@Module({
  imports: [TypeOrmModule.forFeature([MediaEntity, UploadSessionEntity]), ProfilesModule],
  controllers: [MediaController, MediaFilesController, UploadSessionPagesController],
  providers: [
    MediaService,
    UploadSessionsService,
    UploadSigner,
    LocalMediaStorage,
    {
      provide: MEDIA_STORAGE,
      inject: [AppConfig, LocalMediaStorage, UploadSigner],
      useFactory: (config: AppConfig, local: LocalMediaStorage, signer: UploadSigner): MediaStorage =>
        config.media.MEDIA_STORAGE === 's3' ? new S3MediaStorage(config, signer) : local,
    },
  ],
  exports: [MediaService],
})
export class MediaModule {}
