/** The path of the installed Electron binary, or null when none was downloaded. */
export function electronBinary(): string | null;
