// ISO 3166-1 alpha-2: the shape check of CountryCode lets any two letters through ("XX", "UK"),
// so services that store a country check membership here as well.
import type { SchemaErrorItem } from '../http/errors.js';

const ALPHA2 = `
AD AE AF AG AI AL AM AO AQ AR AS AT AU AW AX AZ BA BB BD BE BF BG BH BI BJ BL BM BN BO BQ BR BS BT BV BW BY BZ
CA CC CD CF CG CH CI CK CL CM CN CO CR CU CV CW CX CY CZ DE DJ DK DM DO DZ EC EE EG EH ER ES ET FI FJ FK FM FO FR
GA GB GD GE GF GG GH GI GL GM GN GP GQ GR GS GT GU GW GY HK HM HN HR HT HU ID IE IL IM IN IO IQ IR IS IT JE JM JO JP
KE KG KH KI KM KN KP KR KW KY KZ LA LB LC LI LK LR LS LT LU LV LY MA MC MD ME MF MG MH MK ML MM MN MO MP MQ MR MS
MT MU MV MW MX MY MZ NA NC NE NF NG NI NL NO NP NR NU NZ OM PA PE PF PG PH PK PL PM PN PR PS PT PW PY QA RE RO RS
RU RW SA SB SC SD SE SG SH SI SJ SK SL SM SN SO SR SS ST SV SX SY SZ TC TD TF TG TH TJ TK TL TM TN TO TR TT TV TW
TZ UA UG UM US UY UZ VA VC VE VG VI VN VU WF WS YE YT ZA ZM ZW`;

export const ISO_COUNTRY_CODES: ReadonlySet<string> = new Set(ALPHA2.trim().split(/\s+/));

/** True when `code` (any case) is an assigned ISO 3166-1 alpha-2 code. */
export const isIsoCountry = (code: string) => ISO_COUNTRY_CODES.has(code.toUpperCase());

/**
 * The 422 item for a code the schema's two-letter pattern admits but ISO 3166-1 does not assign
 * (`XX`, `UK`); undefined for anything else (absent, null, or already refused by the schema).
 */
export function unknownCountryItem(country: unknown, loc: (string | number)[]): SchemaErrorItem | undefined {
  if (typeof country !== 'string' || !/^[A-Za-z]{2}$/.test(country) || isIsoCountry(country)) return undefined;
  return {
    type: 'value_error',
    loc,
    msg: 'Value error, country must be an ISO 3166-1 alpha-2 code',
    input: country,
    ctx: { error: 'unknown country code' },
  };
}
