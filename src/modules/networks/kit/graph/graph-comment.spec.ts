import { graphEndpoints, graphFetch, timeout } from '@test/support/doc-fetch';
import { FacebookAdapter } from '../../facebook/facebook.adapter';
import { InstagramAdapter } from '../../instagram/instagram.adapter';
import { PlatformError } from '../adapter';

const endpoints = graphEndpoints('https://graph.facebook.com/v23.0', 'https://www.facebook.com/v23.0/dialog/oauth');

/** The first comment of the Graph networks: POST /{object-id}/comments { message } answers { id }. */
describe.each([
  {
    network: 'Facebook (as the Page)',
    // https://developers.facebook.com/docs/graph-api/reference/object/comments (Publishing)
    make: () => new FacebookAdapter(endpoints),
    token: 'page-token',
    doc: { item: 'page_id_post_id', comment: 'post_id_comment_id' },
  },
  {
    network: 'Instagram (on its own media)',
    // https://developers.facebook.com/docs/instagram-platform/instagram-graph-api/reference/ig-media/comments (Creating)
    make: () => new InstagramAdapter(endpoints),
    token: 'user-token',
    doc: { item: '17895695668004550', comment: '17873440459141021' },
  },
])('$network first comment (doc bodies)', ({ make, token, doc }) => {
  const account = { platformAccountId: '1234567890', accessToken: token, metadata: {} };
  const net = graphFetch().eachTest();
  const adapter = make();

  it('should comment with POST /{object-id}/comments and answer the comment id', async () => {
    net.on('POST', `/${doc.item}/comments`, { body: { id: doc.comment } });
    const res = await adapter.postComment({ account, externalId: doc.item, text: 'Link in bio' });
    expect(res).toEqual({ id: doc.comment });
    expect(net.calls[0].params).toEqual({ message: 'Link in bio', access_token: token });
  });

  it('should report a lost answer as an unknown outcome, never as retryable', async () => {
    net.on('POST', '/p/comments', timeout());
    const err = await adapter.postComment({ account, externalId: 'p', text: 'x' }).catch((e: unknown) => e);
    expect(err).toMatchObject({ category: 'unknown_outcome', retryable: false });
  });

  it('should map Graph errors of the comment call', async () => {
    const body = { error: { message: '(#100) Invalid parameter', type: 'OAuthException', code: 100 } };
    net.on('POST', '/m1/comments', { status: 400, body });
    const err = await adapter.postComment({ account, externalId: 'm1', text: 'x' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(PlatformError);
    expect(err).toMatchObject({ category: 'invalid_content', retryable: false });
  });
});
