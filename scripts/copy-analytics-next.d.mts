export function copyAnalyticsNext(target: string): string[];
