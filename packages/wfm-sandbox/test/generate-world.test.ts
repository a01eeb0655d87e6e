import { describe, expect, it } from 'vitest';
import { generateWorld, MAX_USERS, MIN_USERS, userCountFor } from '../src/generate-world.js';
import { transliterate } from '../src/transliterate.js';

describe('generateWorld', () => {
  const world = generateWorld(1, 10_000);

  it('builds 6 to 12 divisions, about 40 regions and a few hundred shops', () => {
    expect(world.divisions.length).toBeGreaterThanOrEqual(6);
    expect(world.divisions.length).toBeLessThanOrEqual(12);
    expect(world.regions.length).toBeGreaterThanOrEqual(35);
    expect(world.regions.length).toBeLessThanOrEqual(50);
    expect(world.shops.length).toBeGreaterThanOrEqual(200);
    expect(world.shops.length).toBeLessThanOrEqual(600);
  });

  it('gives shops unique SAP numbers, some with leading zeros', () => {
    const saps = world.shops.map((s) => s.sap);
    expect(new Set(saps).size).toBe(saps.length);
    expect(saps.filter((s) => s.startsWith('0')).length).toBeGreaterThan(world.shops.length / 10);
    expect(saps.every((s) => /^\d{4,5}$/.test(s))).toBe(true);
  });

  it('names places in Cyrillic and Latin script and writes long addresses', () => {
    expect(world.shops.some((s) => /[А-Яа-я]/.test(s.address ?? ''))).toBe(true);
    expect(world.shops.some((s) => /^[\x20-\x7e—’]+$/.test(s.address ?? 'x'))).toBe(true);
    const lengths = world.shops.flatMap((s) => (s.address === null ? [] : [s.address.length]));
    expect(lengths.reduce((a, b) => a + b, 0) / lengths.length).toBeGreaterThan(70);
    expect(world.shops.some((s) => s.address === null)).toBe(true);
  });

  it('lists, for any seed, one manager of each kind a mailer must skip or defuse, and the rest mailable', () => {
    for (const seed of [1, 2, 7, 99]) {
      const w = generateWorld(seed, 5_000);
      const managers = w.divisions.flatMap((d) => d.managers.map((m) => w.users[m]));
      const isAddress = (login: string) => /^[^@\s]+@[^@\s]+\.[a-z]+$/.test(login);
      const skipped = managers.filter((m) => !m?.active || !m.inviteAccepted || !isAddress(m.login));
      expect(managers.filter((m) => m?.active === false)).toHaveLength(1);
      expect(managers.filter((m) => m?.inviteAccepted === false)).toHaveLength(1);
      expect(managers.filter((m) => !isAddress(m?.login ?? ''))).toHaveLength(1);
      expect(skipped).toHaveLength(3);
      expect(managers.filter((m) => /[\r\n]/.test(m?.firstName ?? ''))).toHaveLength(1);
      expect(managers.some((m) => /[А-Яа-я]/.test(`${m?.firstName} ${m?.lastName}`))).toBe(true);
      const logins = w.users.map((u) => u.login);
      expect(new Set(logins).size).toBe(logins.length);
    }
  });

  it('appoints managers with e-mail logins and leaves some divisions without any', () => {
    const managers = world.divisions.flatMap((d) => d.managers.map((m) => world.users[m]));
    expect(managers.length).toBeGreaterThan(5);
    for (const m of managers) expect(m?.orgLevel).toBe('DIVISION');
    const withAddress = managers.filter((m) => /^[^@\s]+@[^@\s]+\.[a-z]+$/.test(m?.login ?? ''));
    expect(withAddress.length).toBe(managers.length - 1);
    expect(world.divisions.some((d) => d.managers.length === 0)).toBe(true);
    expect(world.divisions.some((d) => !d.active)).toBe(true);
  });

  it('gives every shop a user and scales users with rows within bounds', () => {
    const homes = new Set(world.users.map((u) => u.homeShop));
    expect(homes.size).toBe(world.shops.length);
    expect(new Set(world.users.map((u) => u.login)).size).toBe(world.users.length);
    expect(userCountFor(10)).toBe(MIN_USERS);
    expect(userCountFor(50_000_000)).toBe(MAX_USERS);
    expect(userCountFor(60_000)).toBe(3000);
  });

  it('is the same for the same seed', () => {
    expect(generateWorld(1, 10_000)).toEqual(world);
    expect(generateWorld(2, 10_000).shops.map((s) => s.sap)).not.toEqual(world.shops.map((s) => s.sap));
  });
});

describe('generateWorld with a division count', () => {
  it('deals the shops round-robin to that many divisions, each listing its regions', () => {
    const world = generateWorld(7, 10_000, 200);
    expect(world.divisions.map((d) => d.id)).toEqual(Array.from({ length: 200 }, (_, i) => i + 1));
    expect(world.shops.every((shop, i) => shop.division === i % 200)).toBe(true);
    // Enough shops that every division has one, so every division gets shifts.
    expect(new Set(world.shops.map((s) => s.division)).size).toBe(200);
    for (const [index, region] of world.regions.entries())
      expect(world.divisions[region.division]?.regions).toContain(index);
    expect(generateWorld(7, 10_000, 200).users).toEqual(generateWorld(7, 10_000).users);
  });
});

describe('transliterate', () => {
  it('turns Cyrillic and accented names into ASCII login parts', () => {
    expect(transliterate('Фёдорова')).toBe('fedorova');
    expect(transliterate('Римский-Корсаков')).toBe('rimskiy-korsakov');
    expect(transliterate("D'Arcy")).toBe('darcy');
    expect(transliterate('Zoë Van der Berg')).toBe('zoe-van-der-berg');
  });
});
