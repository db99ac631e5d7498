import { classifyGraphError, graphError, retryAfterFrom } from './graph-errors';

describe('Graph error mapping', () => {
  // Body from https://developers.facebook.com/docs/graph-api/guides/error-handling ("Error Responses").
  const docBody = {
    error: {
      message: 'Message describing the error',
      type: 'OAuthException',
      code: 190,
      error_subcode: 460,
      error_user_title: 'A title',
      error_user_msg: 'A message',
      fbtrace_id: 'EJplcsCHuLu',
    },
  };

  it('should map the documented token error to auth_expired with the network message', () => {
    const err = graphError(400, docBody);
    expect(err.category).toBe('auth_expired');
    expect(err.retryable).toBe(false);
    expect(err.message).toBe('Message describing the error A message');
    expect(err.details).toMatchObject({ status: 400, networkCode: '190/460' });
  });

  it('should map the insights "No Metric Specified" doc body to invalid_content', () => {
    // https://developers.facebook.com/docs/graph-api/reference/v2.9/insights
    const body = {
      error: {
        message: 'Invalid query',
        type: 'OAuthException',
        code: 3001,
        error_subcode: 1504028,
        is_transient: false,
        error_user_title: 'No Metric Specified',
        error_user_msg:
          'No metric was specified to be fetched. Please specify one or more metrics to be fetched and try again.',
        fbtrace_id: 'GpdspOgqUHT',
      },
    };
    expect(graphError(400, body)).toMatchObject({ category: 'invalid_content', retryable: false });
  });

  it.each([
    [400, 102, undefined, 'auth_expired', false],
    [400, 100, 463, 'auth_expired', false],
    [400, 100, 467, 'auth_expired', false],
    [403, 200, undefined, 'auth_expired', false],
    [400, 4, undefined, 'network_rate_limited', true],
    [400, 17, undefined, 'network_rate_limited', true],
    [400, 32, undefined, 'network_rate_limited', true],
    [400, 613, undefined, 'network_rate_limited', true],
    [400, 80001, undefined, 'network_rate_limited', true],
    [400, 9, 2207042, 'network_rate_limited', true],
    [500, 1, undefined, 'network_error', true],
    [500, 2, undefined, 'network_error', true],
    [503, 0, undefined, 'network_error', true],
    [400, 100, undefined, 'invalid_content', false],
    [400, 506, undefined, 'invalid_content', false],
    [400, 324, undefined, 'media_rejected', false],
    [400, 352, undefined, 'media_rejected', false],
    [400, 9004, 2207052, 'media_rejected', false],
    [400, 100, 2207026, 'media_rejected', false],
    [400, 6001, 1363019, 'media_rejected', false],
    [400, 9007, 2207027, 'network_error', true],
  ])('should map HTTP %i code %i/%s to %s', (status, code, subcode, category, retryable) => {
    expect(classifyGraphError(status, { message: 'x', code, error_subcode: subcode })).toEqual({ category, retryable });
  });

  it('should read the retry delay from X-Business-Use-Case-Usage', () => {
    // Header shape from https://developers.facebook.com/docs/graph-api/overview/rate-limiting
    const headers = new Headers({
      'x-business-use-case-usage': JSON.stringify({
        '66782684': [
          { type: 'pages', call_count: 100, total_cputime: 25, total_time: 25, estimated_time_to_regain_access: 19 },
        ],
      }),
    });
    expect(retryAfterFrom(headers)).toBe(19 * 60);
    expect(
      graphError(
        400,
        { error: { message: '(#32) Page request limit reached', type: 'OAuthException', code: 32 } },
        headers,
      ).details.retryAfterSeconds,
    ).toBe(1140);
  });

  it('should cope with a body that is not a Graph error', () => {
    expect(graphError(502, '<html>Bad gateway</html>')).toMatchObject({
      category: 'network_error',
      retryable: true,
      message: 'The network answered HTTP 502.',
    });
  });
});
