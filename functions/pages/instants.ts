/**
 * An instant as a person reads it, in their locale, always in UTC with the zone named. The way
 * each locale writes it comes from Intl at build time (lib/contract/generate-date-formats.ts, one
 * table per language in functions/generated/date-formats/), so a page never creates an
 * Intl.DateTimeFormat (ICU's date data costs a first request 12-17 ms).
 */
export type DatePart = 'year' | 'month' | 'day' | 'hour' | 'minute' | 'dayPeriod' | 'timeZoneName' | { text: string };

export interface DateFormat {
  parts: DatePart[];
  months: string[];
  /** AM and PM words when the locale counts hours 1-12, else null (00-23). */
  dayPeriods: [string, string] | null;
  /** Hours written with two digits (09). */
  hourTwoDigits: boolean;
  /** Days written with two digits (04). */
  dayTwoDigits: boolean;
}

const two = (n: number): string => String(n).padStart(2, '0');

/** A locale's entry in its language's table: the exact tag, else the language's own. */
export function dateFormatIn(table: Record<string, DateFormat>, formatLocale: string): DateFormat {
  return table[formatLocale] ?? table[formatLocale.split('-')[0].toLowerCase()];
}

/** The date alone (day, month, year and the text between them), as the locale writes it before the time. */
export function dateOnly(format: DateFormat): DateFormat {
  const firstTimePart = format.parts.findIndex((part) => typeof part === 'string' && part !== 'year' && part !== 'month' && part !== 'day');
  const parts = firstTimePart === -1 ? [...format.parts] : format.parts.slice(0, firstTimePart);
  while (parts.length > 0 && typeof parts[parts.length - 1] !== 'string') parts.pop();
  return { ...format, parts };
}

export function writeInstant(iso: string, format: DateFormat): string {
  const d = new Date(iso);
  const hours = d.getUTCHours();
  const hour = format.dayPeriods ? hours % 12 || 12 : hours;
  return format.parts
    .map((part) => {
      if (typeof part !== 'string') return part.text;
      switch (part) {
        case 'year':
          return String(d.getUTCFullYear());
        case 'month':
          return format.months[d.getUTCMonth()];
        case 'day':
          return format.dayTwoDigits ? two(d.getUTCDate()) : String(d.getUTCDate());
        case 'hour':
          return format.hourTwoDigits ? two(hour) : String(hour);
        case 'minute':
          return two(d.getUTCMinutes());
        case 'dayPeriod':
          return format.dayPeriods ? format.dayPeriods[hours < 12 ? 0 : 1] : '';
        case 'timeZoneName':
          return 'UTC';
      }
    })
    .join('');
}
