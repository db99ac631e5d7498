import { graphError } from './graph-errors';

describe('graphError message', () => {
  it('should say a message once when error_user_msg repeats it (the sandbox failure was printed twice)', () => {
    const said = 'The facebook sandbox rejected this post (#sandbox-fail).';
    const e = graphError(400, { error: { message: `(#100) ${said}`, code: 100, error_user_msg: said } });
    expect(e.message).toBe(`(#100) ${said}`);
  });

  it('should still add a different error_user_msg', () => {
    const e = graphError(400, {
      error: { message: '(#100) Invalid parameter', code: 100, error_user_msg: 'Add a photo.' },
    });
    expect(e.message).toBe('(#100) Invalid parameter Add a photo.');
  });
});
