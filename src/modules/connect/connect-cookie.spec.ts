import { loadConfig } from '@/config/config';
import { connectCookie, readConnectCookie } from './connect-flow.service';

describe('connect cookie', () => {
  const nonce = 'n'.repeat(43);
  const inAnHour = new Date(Date.now() + 3600_000);

  it('should be __Host-, Secure, HttpOnly and SameSite=Lax on an https address', () => {
    const config = loadConfig({}, { PUBLIC_BASE_URL: 'https://api.example.com' });
    const line = connectCookie(nonce, inAnHour, config);
    expect(line).toMatch(/^__Host-sps_connect=n{43}; Path=\/; Max-Age=(3599|3600); HttpOnly; SameSite=Lax; Secure$/);
    expect(readConnectCookie(`a=b; __Host-sps_connect=${nonce}`, config)).toBe(nonce);
    expect(readConnectCookie(`sps_connect=${nonce}`, config)).toBeNull();
    expect(readConnectCookie(`__Host-sps_connect=short`, config)).toBeNull();
  });

  it('should drop the prefix and Secure on a plain-http development address', () => {
    const config = loadConfig({}, { PUBLIC_BASE_URL: 'http://localhost:3000' });
    expect(connectCookie(nonce, inAnHour, config)).toMatch(/^sps_connect=n{43}; .*HttpOnly; SameSite=Lax$/);
    expect(readConnectCookie(`sps_connect=${nonce}`, config)).toBe(nonce);
  });
});
