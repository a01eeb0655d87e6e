// Static vocabulary of the generated organisation: one place per UTC offset from -12:00 to +14:00
// (so every real offset, +05:30, +05:45, +08:45, +12:45 included, has shops and users), the
// divisions that group those places, and name pools in Cyrillic and Latin script.

export interface Place {
  /** UTC offset of the place in minutes. */
  readonly offset: number;
  readonly city: string;
  readonly country: string;
  readonly lat: number;
  readonly lon: number;
  /** Names, streets and addresses of this place are written in Cyrillic. */
  readonly cyrillic: boolean;
  /** Index into DIVISION_TABLE. */
  readonly division: number;
}

export interface DivisionTemplate {
  readonly name: string;
  readonly externalId: string | null;
  readonly active: boolean;
  /** Number of managers (dirs) appointed; 0 leaves the division without managers. */
  readonly managers: number;
}

export const DIVISION_TABLE: readonly DivisionTemplate[] = [
  { name: 'Дивизион «Центр»', externalId: 'DIV-CENTER', active: true, managers: 3 },
  { name: 'Дивизион «Урал и Поволжье»', externalId: 'DIV-URAL', active: true, managers: 2 },
  { name: 'Дивизион «Сибирь»', externalId: 'DIV-SIB', active: true, managers: 2 },
  { name: 'Дивизион «Дальний Восток»', externalId: 'DIV-FE', active: true, managers: 1 },
  { name: 'Division Americas', externalId: 'DIV-AMER', active: true, managers: 2 },
  { name: 'Division EMEA & South Asia', externalId: 'DIV-EMEA', active: true, managers: 2 },
  { name: 'Division Asia-Pacific, Oceania', externalId: null, active: true, managers: 0 },
  { name: 'Division Pacific Islands', externalId: 'DIV-PAC', active: true, managers: 1 },
  { name: 'Архив (закрытые магазины)', externalId: 'DIV-ARCHIVE', active: false, managers: 0 },
];

const c = (
  offset: number,
  city: string,
  country: string,
  lat: number,
  lon: number,
  division: number,
  cyrillic = false,
): Place => ({ offset, city, country, lat, lon, cyrillic, division });

/** One place per offset first (coverage), then extra places where the chain is dense. */
export const PLACE_TABLE: readonly Place[] = [
  c(-720, 'Baker Island', 'United States Minor Outlying Islands', 0.1936, -176.4769, 7),
  c(-660, 'Pago Pago', 'American Samoa', -14.2756, -170.702, 7),
  c(-600, 'Honolulu', 'United States', 21.3069, -157.8583, 4),
  c(-570, 'Taiohae', 'French Polynesia', -8.9109, -140.0996, 7),
  c(-540, 'Anchorage', 'United States', 61.2181, -149.9003, 4),
  c(-480, 'Los Angeles', 'United States', 34.0522, -118.2437, 4),
  c(-420, 'Denver', 'United States', 39.7392, -104.9903, 4),
  c(-360, 'Chicago', 'United States', 41.8781, -87.6298, 4),
  c(-300, 'New York', 'United States', 40.7128, -74.006, 4),
  c(-240, 'Caracas', 'Venezuela', 10.4806, -66.9036, 4),
  c(-210, "St. John's", 'Canada', 47.5615, -52.7126, 4),
  c(-180, 'São Paulo', 'Brazil', -23.5505, -46.6333, 4),
  c(-120, 'Fernando de Noronha', 'Brazil', -3.8547, -32.4247, 4),
  c(-60, 'Praia', 'Cabo Verde', 14.933, -23.5133, 5),
  c(0, 'London', 'United Kingdom', 51.5074, -0.1278, 5),
  c(60, 'Berlin', 'Germany', 52.52, 13.405, 5),
  c(120, 'Калининград', 'Россия', 54.7104, 20.4522, 0, true),
  c(180, 'Москва', 'Россия', 55.7558, 37.6173, 0, true),
  c(210, 'Tehran', 'Iran', 35.6892, 51.389, 5),
  c(240, 'Самара', 'Россия', 53.1959, 50.1002, 1, true),
  c(270, 'Kabul', 'Afghanistan', 34.5553, 69.2075, 5),
  c(300, 'Екатеринбург', 'Россия', 56.8389, 60.6057, 1, true),
  c(330, 'Mumbai', 'India', 19.076, 72.8777, 5),
  c(345, 'Kathmandu', 'Nepal', 27.7172, 85.324, 5),
  c(360, 'Омск', 'Россия', 54.9885, 73.3242, 2, true),
  c(390, 'Yangon', 'Myanmar', 16.8409, 96.1735, 6),
  c(420, 'Новосибирск', 'Россия', 55.0084, 82.9357, 2, true),
  c(480, 'Иркутск', 'Россия', 52.2869, 104.305, 2, true),
  c(525, 'Eucla', 'Australia', -31.6772, 128.8836, 6),
  c(540, 'Якутск', 'Россия', 62.0355, 129.6755, 3, true),
  c(570, 'Adelaide', 'Australia', -34.9285, 138.6007, 6),
  c(600, 'Владивосток', 'Россия', 43.1155, 131.8855, 3, true),
  c(630, 'Lord Howe Island', 'Australia', -31.5553, 159.0821, 6),
  c(660, 'Магадан', 'Россия', 59.5638, 150.803, 3, true),
  c(720, 'Петропавловск-Камчатский', 'Россия', 53.0452, 158.6483, 3, true),
  c(765, 'Chatham Islands', 'New Zealand', -43.9535, -176.5597, 6),
  c(780, "Nuku'alofa", 'Tonga', -21.1394, -175.2049, 7),
  c(840, 'Kiritimati', 'Kiribati', 1.8721, -157.4278, 7),
  c(180, 'Санкт-Петербург', 'Россия', 59.9343, 30.3351, 0, true),
  c(180, 'Казань', 'Россия', 55.7961, 49.1064, 1, true),
  c(180, 'Краснодар', 'Россия', 45.0355, 38.9753, 0, true),
  c(300, 'Челябинск', 'Россия', 55.1644, 61.4368, 1, true),
  c(420, 'Красноярск', 'Россия', 56.0153, 92.8932, 2, true),
  c(60, 'Warszawa', 'Polska', 52.2297, 21.0122, 5),
];

export const RU_FIRST_NAMES = [
  'Александр',
  'Мария',
  'Дмитрий',
  'Анна',
  'Сергей',
  'Елена',
  'Андрей',
  'Ольга',
  'Алексей',
  'Наталья',
  'Иван',
  'Татьяна',
  'Максим',
  'Екатерина',
  'Артём',
  'Юлия',
  'Николай',
  'Светлана',
  'Евгений',
  'Ксения',
  'Владимир',
  'Дарья',
  'Михаил',
  'Ирина',
  'Павел',
  'Анастасия',
  'Роман',
  'Виктория',
  'Фёдор',
  'Алёна',
] as const;

export const RU_LAST_NAMES = [
  'Иванов',
  'Смирнова',
  'Кузнецов',
  'Попова',
  'Васильев',
  'Петрова',
  'Соколов',
  'Михайлова',
  'Новиков',
  'Фёдорова',
  'Морозов',
  'Волкова',
  'Алексеев',
  'Лебедева',
  'Семёнов',
  'Егорова',
  'Павлов',
  'Козлова',
  'Степанов',
  'Николаева',
  'Орлов',
  'Андреева',
  'Макаров',
  'Захарова',
  'Зайцев',
  'Соловьёва',
  'Римский-Корсаков',
] as const;

export const LATIN_FIRST_NAMES = [
  'James',
  'Maria',
  'Priya',
  'Chen',
  'Olivia',
  "D'Arcy",
  'Noah',
  'Aroha',
  'Sione',
  'Fatima',
  'Lucas',
  'Ana',
  'Raj',
  'Sakura',
  'Liam',
  'Zoë',
  'Mateo',
  'Anjali',
  'Tane',
  'Émilie',
  'Jürgen',
  'Siobhán',
  'Kwame',
  'Leilani',
] as const;

export const LATIN_LAST_NAMES = [
  'Smith',
  'García',
  'Sharma',
  'Wang',
  'Johnson',
  "O'Connor",
  'Nguyen',
  'Müller',
  'Tupou',
  'Silva',
  'Kowalski',
  'Shrestha',
  'Patel',
  'Tanaka',
  'Brown',
  'Van der Berg',
  'Rodríguez',
  'Kealoha',
  'Ahmadi',
  'Fernández-López',
] as const;

export const RU_POSITIONS = [
  'Продавец-консультант',
  'Старший продавец-консультант',
  'Кассир',
  'Старший кассир',
  'Товаровед',
  'Администратор торгового зала',
  'Директор магазина',
  'Заместитель директора магазина',
  'Мерчандайзер',
  'Кладовщик',
  'Территориальный менеджер',
  'Региональный директор',
] as const;

export const LATIN_POSITIONS = [
  'Sales Associate',
  'Senior Sales Associate',
  'Cashier',
  'Head Cashier',
  'Stock Controller',
  'Store Manager',
  'Assistant Store Manager',
  'Visual Merchandiser',
  'Warehouse Operative',
  'Area Manager',
  'Regional Director',
  'Customer Service Representative, Night Shift',
] as const;

export const RU_STREETS = [
  'ул. Большая Дорогомиловская',
  'пр-т Мира',
  'ул. Ленина',
  'Ленинградское ш.',
  'ул. Профсоюзная',
  'наб. реки Фонтанки',
  'ул. Карла Маркса',
  'Комсомольский пр-т',
  'ул. 8 Марта',
  'ул. Малышева',
  'Красный пр-т',
  'ул. Светланская',
  'ул. Баумана',
  'ул. Красная',
  'Октябрьская пл.',
] as const;

export const LATIN_STREETS = [
  'Main Street',
  'Broadway',
  'High Street',
  'Avenida Paulista',
  'Kalākaua Avenue',
  'Unter den Linden',
  'Marine Drive',
  'Durbar Marg',
  'King Street',
  'Rue de la Paix',
  'Taufa’ahau Road',
  'Queen Street',
  'Oxford Street',
  'Michigan Avenue',
  'Calle Ocho',
  'Marszałkowska',
] as const;

export const RU_MALLS = [
  'ТЦ «Европейский»',
  'ТРЦ «Мега»',
  'ТЦ «Галерея»',
  'ТРК «Гринвич»',
  'ТЦ «Атриум»',
  'ТРЦ «Аура»',
  'ТЦ «Планета»',
  'ТЦ "Калина"',
  'ТРЦ «Ривьера»',
  'отдельно стоящее здание',
] as const;

export const LATIN_MALLS = [
  'Westfield Centre',
  'Ala Moana Center',
  'The Grove',
  'Mall of the Americas',
  'City Centre Mall',
  'Harbour Plaza',
  'Galleria "Uptown"',
  'Shopping Arcade',
  'Retail Park, Unit',
  'standalone store',
] as const;

export const BUSINESS_DIRS: readonly { readonly id: number; readonly name: string }[] = [
  { id: 1, name: 'Продукты' },
  { id: 2, name: 'Электроника и бытовая техника' },
  { id: 3, name: 'Fashion & Apparel' },
  { id: 4, name: 'Home & Garden' },
  { id: 5, name: 'Pharmacy' },
];

export const LANGS = ['ru_RU', 'en_US', 'en_GB', 'kk_KZ', 'pt_BR', 'de_DE', 'hi_IN', 'ne_NP'] as const;
