// Word lists the seed SQL draws from, so that seeded rows look like the marketplace's real records
// (and trigram searches see realistic text, not "row 42").

export const places: { city: string; country: string; registration: string }[] = [
  { city: 'Toulouse', country: 'FR', registration: 'F-' },
  { city: 'Tarbes', country: 'FR', registration: 'F-' },
  { city: 'Châteauroux', country: 'FR', registration: 'F-' },
  { city: 'Hamburg', country: 'DE', registration: 'D-' },
  { city: 'Dresden', country: 'DE', registration: 'D-' },
  { city: 'Shannon', country: 'IE', registration: 'EI-' },
  { city: 'Kemble', country: 'GB', registration: 'G-' },
  { city: 'Lasham', country: 'GB', registration: 'G-' },
  { city: 'Teruel', country: 'ES', registration: 'EC-' },
  { city: 'Castellón', country: 'ES', registration: 'EC-' },
  { city: 'Twente', country: 'NL', registration: 'PH-' },
  { city: 'Naples', country: 'IT', registration: 'I-' },
  { city: 'Marana', country: 'US', registration: 'N' },
  { city: 'Victorville', country: 'US', registration: 'N' },
  { city: 'Roswell', country: 'US', registration: 'N' },
  { city: 'Mojave', country: 'US', registration: 'N' },
  { city: 'Goodyear', country: 'US', registration: 'N' },
  { city: 'Montreal', country: 'CA', registration: 'C-' },
  { city: 'São José dos Campos', country: 'BR', registration: 'PR-' },
  { city: 'Alice Springs', country: 'AU', registration: 'VH-' },
  { city: 'Xiamen', country: 'CN', registration: 'B-' },
  { city: 'Singapore', country: 'SG', registration: '9V-' },
  { city: 'Dubai', country: 'AE', registration: 'A6-' },
  { city: 'Mexico City', country: 'MX', registration: 'XA-' },
];

export const operators = [
  'Air France',
  'Lufthansa',
  'British Airways',
  'Iberia',
  'KLM',
  'Aer Lingus',
  'easyJet',
  'Ryanair',
  'Vueling',
  'ITA Airways',
  'Delta Air Lines',
  'American Airlines',
  'United Airlines',
  'Southwest Airlines',
  'Air Canada',
  'LATAM',
  'Qantas',
  'Singapore Airlines',
  'Emirates',
  'China Southern',
  'Aeromexico',
  'SAS',
];

export const descriptionOpeners = [
  'Full part-out of',
  'Teardown of',
  'Harvest programme for',
  'End-of-life disassembly of',
  'Part-out in progress:',
  'Green-time teardown of',
  'Complete dismantling of',
];

export const descriptionDetails = [
  'Landing gear, APU and avionics available',
  'Engines removed and stored separately',
  'Back-to-birth records available',
  'Harvest list on request',
  'Components tagged by an EASA Part-145 shop',
  'Interior and galleys available',
  'Flight controls and actuators removed',
  'LLP disk sheets available',
  'Stored in a dry climate since retirement',
];

export const descriptionClosers = [
  'Contact sales for pricing.',
  'Certified components with FAA 8130-3 or EASA Form 1.',
  'Exchange and outright sale considered.',
  'Inspection by appointment.',
  'Photos available on request.',
];

export const conditions = ['Serviceable', 'Overhauled', 'As removed', 'Repairable', 'New', 'Inspected/Tested'];

export const listingModes = ['sale', 'lease', 'exchange', 'sale or lease'];

const companyStems = [
  'Aero',
  'Sky',
  'Jet',
  'Avia',
  'Wing',
  'Atlas',
  'Polar',
  'Summit',
  'Harbor',
  'Meridian',
  'Vector',
  'Horizon',
  'Falcon',
  'Nimbus',
  'Orion',
  'Zephyr',
  'Cobalt',
];
const companyKinds = [
  'Part-Out',
  'Aviation Assets',
  'Aerospace Recycling',
  'Component Solutions',
  'Leasing',
  'Technics',
  'Materials',
  'MRO',
];

export const organizationName = (i: number) =>
  `${companyStems[i % companyStems.length]} ${companyKinds[i % companyKinds.length]} ${String(i + 1).padStart(2, '0')}`;
