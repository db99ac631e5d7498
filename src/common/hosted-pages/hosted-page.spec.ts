import { layout, textOn } from './hosted-page';

describe('hosted page layout', () => {
  it.each([
    ['#ffcc00', '#000000'],
    ['#ffffff', '#000000'],
    ['#1a1a1a', '#ffffff'],
    ['#2a5bd7', '#ffffff'],
    ['#777777', '#000000'],
  ])('should put readable text on %s (%s)', (accent, text) => {
    expect(textOn(accent)).toBe(text);
  });

  it('should show the brand, escaped, with its logo and support link', () => {
    const html = layout({
      title: 't',
      body: '<p>x</p>',
      brand: { name: '<Acme>', logoPath: '/branding/p/logo?v=1', accentColor: '#ffcc00', supportUrl: 'mailto:a@b.c' },
    });
    expect(html).toContain('<span class="brand-name">&lt;Acme&gt;</span>');
    expect(html).toContain('<img src="/branding/p/logo?v=1" alt="" height="48">');
    expect(html).toContain('<a href="mailto:a@b.c" rel="noopener noreferrer">Contact &lt;Acme&gt;</a>');
    expect(html).toContain('button.primary { background: #ffcc00; border-color: #ffcc00; color: #000000; }');
  });

  it('should render without a brand', () => {
    const html = layout({ title: 't', body: '<p>x</p>' });
    expect(html).not.toContain('<header');
    expect(html).not.toContain('<footer');
  });
});
