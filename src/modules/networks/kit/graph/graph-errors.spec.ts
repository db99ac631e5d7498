import type { ErrorCategory } from '../adapter';
import GRAPH_ERROR_BODIES from './graph-error-bodies.json';
import { classifyGraphError, graphError, retryAfterFrom } from './graph-errors';

describe('Graph error mapping', () => {
  const docBody = GRAPH_ERROR_BODIES.errorResponse;

  it('should map the documented token error to auth_expired with the network message', () => {
    const err = graphError(400, docBody);
    expect(err.category).toBe('auth_expired');
    expect(err.retryable).toBe(false);
    expect(err.message).toBe('Message describing the error A message');
    expect(err.details).toMatchObject({ status: 400, networkCode: '190/460' });
  });

  it('should map the insights "No Metric Specified" doc body to invalid_content', () => {
    const body = GRAPH_ERROR_BODIES.insightsNoMetric;
    expect(graphError(400, body)).toMatchObject({ category: 'invalid_content', retryable: false });
  });

  /** [category, retryable, the (HTTP status, code, subcode) answers that map to it] */
  const CASES: [ErrorCategory, boolean, [number, number, number?][]][] = [
    [
      'auth_expired',
      false,
      [
        [400, 102],
        [400, 100, 463],
        [400, 100, 467],
        [403, 200],
      ],
    ],
    [
      'network_rate_limited',
      true,
      [
        [400, 4],
        [400, 17],
        [400, 32],
        [400, 613],
        [400, 80001],
        [400, 9, 2207042],
      ],
    ],
    [
      'network_error',
      true,
      [
        [500, 1],
        [500, 2],
        [503, 0],
        [400, 9007, 2207027],
      ],
    ],
    [
      'invalid_content',
      false,
      [
        [400, 100],
        [400, 506],
      ],
    ],
    [
      'media_rejected',
      false,
      [
        [400, 324],
        [400, 352],
        [400, 9004, 2207052],
        [400, 100, 2207026],
        [400, 6001, 1363019],
      ],
    ],
  ];
  const rows = CASES.flatMap(([category, retryable, answers]) =>
    answers.map(([status, code, subcode]) => [status, code, subcode, category, retryable] as const),
  );
  it.each(rows)('should map HTTP %i code %i/%s to %s', (status, code, subcode, category, retryable) => {
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
