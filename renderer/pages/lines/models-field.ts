/** "gpt-4o, llama3=llama3:8b" → models and a model map, as the CLI's --models reads it. */
export function parseModels(text: string): { models: string[]; modelMap: Record<string, string> } {
  const models: string[] = [];
  const modelMap: Record<string, string> = {};
  for (const part of text.split(/[,\s]+/)) {
    if (!part) continue;
    const [id, upstream] = part.split('=', 2) as [string, string | undefined];
    if (!id) continue;
    models.push(id);
    if (upstream) modelMap[id] = upstream;
  }
  return { models, modelMap };
}

export function formatModels(models: readonly string[], modelMap: Record<string, string>): string {
  return models.map((m) => (modelMap[m] ? `${m}=${modelMap[m]}` : m)).join(', ');
}
