import { writeFileSync } from "node:fs"
import { join } from "node:path"
import { API_TYPES_PATH, apiTypes } from "./apiTypes.ts"
import { ROOT } from "../docs/reference/sourceFiles.ts"

// Writes src/console/web/api.d.ts, the console's API types (see ./apiTypes.ts).

writeFileSync(join(ROOT, API_TYPES_PATH), await apiTypes())
process.stdout.write(`${API_TYPES_PATH}\n`)
