import { esc, resultPage, selectionPage } from './connect-pages';

describe('hosted connect pages', () => {
  it('should escape every HTML-significant character', () => {
    expect(esc(`<a href="x" onclick='y'>&</a>`)).toBe(
      '&lt;a href=&quot;x&quot; onclick=&#39;y&#39;&gt;&amp;&lt;/a&gt;',
    );
  });

  it('should render the picker with labelled checkboxes and escaped values', () => {
    const page = selectionPage({
      action: '/connect/s1/select',
      token: 'tok"en',
      platform: 'facebook',
      choices: [
        { platformAccountId: '1"><script>', name: '<b>Bakery</b>', username: 'bakery' },
        { platformAccountId: '2', name: 'Cafe' },
      ],
    });
    if (page.kind !== 'page') throw new Error('expected a page');
    expect(page.status).toBe(200);
    expect(page.html).not.toContain('<script>');
    expect(page.html).not.toContain('<b>');
    expect(page.html).toContain('value="tok&quot;en"');
    expect(page.html).toContain(
      '<label for="acct-0"><input type="checkbox" id="acct-0" name="accounts" value="1&quot;&gt;&lt;script&gt;">',
    );
    expect(page.html).toContain('<legend>Facebook Pages</legend>');
    expect(page.html).toMatch(/<html lang="en">/);
  });

  it('should answer 400 with an alert when the picker is sent back empty', () => {
    const page = selectionPage({
      action: '/x',
      token: 't',
      platform: 'linkedin',
      choices: [{ platformAccountId: '1', name: 'A' }],
      error: 'Choose at least one account to connect.',
    });
    expect(page).toMatchObject({ kind: 'page', status: 400 });
    if (page.kind === 'page') expect(page.html).toContain('role="alert"');
  });

  it('should render the end page of each outcome', () => {
    const ok = resultPage({
      platform: 'youtube',
      status: 'completed',
      accounts: [{ name: 'My <Channel>' }],
      error: null,
    });
    expect(ok.kind === 'page' && ok.html).toContain('<li>My &lt;Channel&gt;</li>');
    const failed = resultPage({
      platform: 'tiktok',
      status: 'failed',
      accounts: [],
      error: { message: 'Denied <here>' },
    });
    expect(failed.kind === 'page' && failed.html).toContain('Denied &lt;here&gt;');
    expect(resultPage({ platform: 'tiktok', status: 'expired', accounts: [], error: null })).toMatchObject({
      status: 410,
    });
  });
});

describe('LinkedIn picker', () => {
  it('should separate the personal profile from company pages', () => {
    const page = selectionPage({
      action: '/connect/x/select',
      token: 't',
      platform: 'linkedin',
      choices: [
        { platformAccountId: 'urn:li:person:1', name: 'Ada Lovelace', kind: 'member' },
        { platformAccountId: 'urn:li:organization:2', name: 'Acme', kind: 'organization' },
      ],
    });
    if (page.kind !== 'page') throw new Error('expected a page');
    expect(page.html).toMatch(/<legend>Your personal profile<\/legend>\n<label[^>]*>.*Ada Lovelace/);
    expect(page.html).toMatch(/<legend>Company pages<\/legend>\n<label[^>]*>.*Acme/);
  });
});
