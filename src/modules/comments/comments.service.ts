import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { Repository } from 'typeorm';
import { AuthContext } from '@/common/auth/auth-context';
import { parseIsoDateTime } from '@/common/dates/strict-dates';
import { ApiError } from '@/common/errors/api-error';
import { pageLimit } from '@/common/pagination/pagination';
import { CommentDto, CommentListDto, ListCommentsQueryDto } from './dto/comment.dto';
import { CommentEntity } from './entities/comment.entity';

export function toCommentDto(c: CommentEntity): CommentDto {
  return {
    id: c.id,
    accountId: c.accountId,
    postId: c.postId,
    platform: c.platform,
    externalId: c.externalId,
    externalPostId: c.externalPostId,
    authorName: c.authorName,
    text: c.text,
    createdAt: c.createdAt.toISOString(),
    receivedAt: c.receivedAt.toISOString(),
  };
}

interface Cursor {
  createdAt: string;
  id: string;
}

/** Opaque to clients: the (createdAt, id) of the last comment of a page. */
export function encodeCursor(c: CommentEntity): string {
  return Buffer.from(JSON.stringify([c.createdAt.toISOString(), c.id])).toString('base64url');
}

export function decodeCursor(cursor: string): Cursor {
  try {
    const [createdAt, id] = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as unknown[];
    if (
      typeof createdAt === 'string' &&
      typeof id === 'string' &&
      parseIsoDateTime(createdAt) !== null &&
      /^[0-9a-f-]{36}$/.test(id)
    )
      return { createdAt, id };
  } catch {
    // fall through
  }
  throw ApiError.invalid('cursor', 'cursor is not valid; pass the nextCursor of a previous page');
}

/** `GET /v1/comments`: stored comments, oldest first, cursor-paginated over (createdAt, id). */
@Injectable()
export class CommentsService {
  constructor(@InjectRepository(CommentEntity) private readonly comments: Repository<CommentEntity>) {}

  async list(auth: AuthContext, query: ListCommentsQueryDto): Promise<CommentListDto> {
    const limit = pageLimit(query);
    const qb = this.comments
      .createQueryBuilder('c')
      .where('c.workspaceId = :workspaceId AND c.profileId = :profileId', {
        workspaceId: auth.workspaceId,
        profileId: auth.profileId,
      });
    if (query.accountId) {
      // An account the key may not use answers like one that does not exist.
      if (auth.accountIds && !auth.accountIds.includes(query.accountId))
        throw ApiError.notFound('account', query.accountId);
      qb.andWhere('c.accountId = :accountId', { accountId: query.accountId });
    } else if (auth.accountIds) {
      qb.andWhere('c.accountId = ANY(:accountIds)', { accountIds: auth.accountIds });
    }
    if (query.postId) qb.andWhere('c.postId = :postId', { postId: query.postId });
    if (query.cursor) {
      const after = decodeCursor(query.cursor);
      qb.andWhere('(c.createdAt, c.id) > (CAST(:afterAt AS timestamptz), CAST(:afterId AS uuid))', {
        afterAt: after.createdAt,
        afterId: after.id,
      });
    }
    const rows = await qb
      .orderBy('c.createdAt', 'ASC')
      .addOrderBy('c.id', 'ASC')
      .take(limit + 1)
      .getMany();
    const page = rows.slice(0, limit);
    return {
      comments: page.map(toCommentDto),
      nextCursor: rows.length > limit ? encodeCursor(page[page.length - 1]) : null,
    };
  }
}
