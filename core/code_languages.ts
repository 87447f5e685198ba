/**
 * The languages a text upload may be written in, as Zipline v4's web client
 * reads them from `codeMap` in `GET /api/server/settings/web`: the text
 * upload page offers each by name, names the file `text.<ext>` and sends it
 * with the MIME type, so that it is stored typed and shown with a preview.
 */

/** One language: its file extension, MIME type and display name. */
export interface CodeLanguage {
  ext: string;
  mime: string;
  name: string;
}

/** `[ext, mime, name]`, by name. */
const TABLE: [string, string, string][] = [
  ["sh", "application/x-sh", "Bash"],
  ["c", "text/x-csrc", "C"],
  ["cpp", "text/x-c++src", "C++"],
  ["coffee", "text/x-coffeescript", "CoffeeScript"],
  ["css", "text/css", "CSS"],
  ["dart", "application/dart", "Dart"],
  ["dockerfile", "text/x-dockerfile", "Dockerfile"],
  ["ex", "text/x-elixir", "Elixir"],
  ["go", "text/x-go", "Go"],
  ["groovy", "text/x-groovy", "Groovy"],
  ["hbs", "text/x-handlebars-template", "Handlebars"],
  ["hs", "text/x-haskell", "Haskell"],
  ["hcl", "text/x-hcl", "HCL"],
  ["html", "text/html", "HTML"],
  ["http", "text/http", "HTTP"],
  ["ini", "text/x-ini", "INI"],
  ["java", "text/x-java", "Java"],
  ["js", "application/javascript", "JavaScript"],
  ["json", "application/json", "JSON"],
  ["jsx", "text/jsx", "JSX"],
  ["kt", "text/x-kotlin", "Kotlin"],
  ["tex", "text/x-latex", "LaTeX (KaTeX)"],
  ["lua", "text/x-lua", "Lua"],
  ["md", "text/markdown", "Markdown"],
  ["m", "text/x-matlab", "MATLAB"],
  ["conf", "text/x-nginx-conf", "NGINX Config File"],
  ["pl", "text/x-perl", "Perl"],
  ["php", "application/x-httpd-php", "PHP"],
  ["txt", "text/plain", "Plain Text"],
  ["ps1", "application/x-powershell", "PowerShell"],
  ["py", "text/x-python", "Python"],
  ["r", "text/x-rsrc", "R"],
  ["rb", "text/x-ruby", "Ruby"],
  ["rs", "text/x-rustsrc", "Rust"],
  ["sass", "text/x-sass", "Sass"],
  ["scala", "text/x-scala", "Scala"],
  ["scss", "text/x-scss", "SCSS"],
  ["sql", "application/sql", "SQL"],
  ["swift", "text/x-swift", "Swift"],
  ["ts", "application/typescript", "TypeScript"],
  ["vim", "text/x-vim", "Vim"],
  ["yaml", "text/yaml", "YAML"],
];

/** Every language, by name. */
export const CODE_LANGUAGES: readonly CodeLanguage[] = TABLE.map(([ext, mime, name]) => ({
  ext,
  mime,
  name,
}));
