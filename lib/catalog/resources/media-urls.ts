// Absolute URLs of a media file and of its thumbnail, served by app/media (the embedded demo serves the files itself).
export function mediaUrls(
  baseUrl: string,
  orgSlug: string,
  fileName: string,
): { mediaUrl: string; thumbnailUrl: string } {
  const org = encodeURIComponent(orgSlug);
  const file = encodeURIComponent(fileName);
  return {
    mediaUrl: `${baseUrl}/media/${org}/${file}`,
    thumbnailUrl: `${baseUrl}/media/${org}/thumbs/${file}`,
  };
}
