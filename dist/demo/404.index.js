export const id = 404;
export const ids = [404];
export const modules = {

/***/ 17404:
/***/ ((__unused_webpack_module, __webpack_exports__, __webpack_require__) => {


// EXPORTS
__webpack_require__.d(__webpack_exports__, {
  loadOperationIndex: () => (/* binding */ loadOperationIndex)
});

// UNUSED EXPORTS: createOperationIndex, defaultDescriptionPath

// EXTERNAL MODULE: external "node:fs/promises"
var promises_ = __webpack_require__(51455);
// EXTERNAL MODULE: external "node:module"
var external_node_module_ = __webpack_require__(98995);
// EXTERNAL MODULE: external "node:path"
var external_node_path_ = __webpack_require__(76760);
// EXTERNAL MODULE: ./node_modules/ajv/dist/ajv.js
var ajv = __webpack_require__(42463);
// EXTERNAL MODULE: ./node_modules/ajv-formats/dist/formats.js
var formats = __webpack_require__(10779);
// EXTERNAL MODULE: ./src/github-server/path-template.ts
var path_template = __webpack_require__(4785);
;// CONCATENATED MODULE: ./src/github-server/openapi/describe-errors.ts
function describeErrors(errors, scope) {
    const messages = (errors ?? []).map((error) => {
        const where = scope === 'body' ? bodyLocation(error) : parameterLocation(error);
        return `${where} ${describe(error)}`;
    });
    return [...new Set(messages)];
}
function describe(error) {
    const params = error.params;
    const message = error.message ?? error.keyword;
    if (error.keyword === 'required')
        return `is required`;
    if (error.keyword === 'enum' && Array.isArray(params['allowedValues'])) {
        return `${message}: ${params['allowedValues'].map((value) => JSON.stringify(value)).join(', ')}`;
    }
    if (error.keyword === 'additionalProperties') {
        return `must not have property '${String(params['additionalProperty'])}'`;
    }
    return message;
}
function bodyLocation(error) {
    const missing = error.keyword === 'required' ? missingProperty(error) : undefined;
    const path = missing === undefined ? error.instancePath : `${error.instancePath}/${missing}`;
    return `body${path}`;
}
function parameterLocation(error) {
    const [, kind, name] = error.instancePath.split('/');
    const parameter = name ?? (error.keyword === 'required' ? missingProperty(error) : undefined);
    const label = kind === 'path' ? 'path parameter' : 'query parameter';
    return parameter === undefined ? label : `${label} '${decodePointer(parameter)}'`;
}
function missingProperty(error) {
    const params = error.params;
    const missing = params['missingProperty'];
    return typeof missing === 'string' ? missing : undefined;
}
function decodePointer(token) {
    return token.replaceAll('~1', '/').replaceAll('~0', '~');
}

;// CONCATENATED MODULE: ./src/github-server/openapi/schema-bundle.ts
/**
 * Turns schemas from GitHub's OpenAPI description into self-contained JSON Schemas Ajv compiles
 * quickly. We read the description with its `$ref`s in place (13 MB, parsed in a few hundred ms)
 * rather than the dereferenced copy (73 MB, over 2 s), and copy only what one operation reaches:
 *
 * 1. `$ref: '#/components/…'` becomes `$ref: '#/definitions/…'`, and the referenced schema is
 *    copied (once) into `definitions`, so cycles stay references.
 * 2. OpenAPI 3.0's `nullable: true` becomes standard JSON Schema (`type: [t, 'null']`, or an
 *    `anyOf` with `null` where there is no `type`), which Ajv otherwise rejects without a `type`.
 * 3. Annotations (descriptions, examples, `x-*`) are dropped; format names are collected so the
 *    caller can register the ones Ajv does not know.
 */
const SCHEMA_MAPS = new Set(['properties', 'patternProperties', 'definitions', '$defs']);
const SCHEMA_LISTS = new Set(['allOf', 'anyOf', 'oneOf', 'prefixItems']);
const SCHEMA_VALUES = new Set([
    'items',
    'additionalProperties',
    'not',
    'if',
    'then',
    'else',
    'contains',
    'propertyNames',
]);
const ANNOTATIONS = new Set([
    'description',
    'title',
    'example',
    'examples',
    'externalDocs',
    'xml',
    'deprecated',
    'discriminator',
    'readOnly',
    'writeOnly',
]);
class SchemaBundler {
    document;
    formats = new Set();
    definitions = {};
    constructor(document) {
        this.document = document;
    }
    /** A copy of `schema` whose references point into this bundle's definitions. */
    rewrite(schema) {
        if (!isRecord(schema))
            return schema;
        // OpenAPI 3.0 ignores the siblings of a $ref.
        if (typeof schema['$ref'] === 'string')
            return { $ref: this.reference(schema['$ref']) };
        const copy = {};
        for (const [key, value] of Object.entries(schema)) {
            if (ANNOTATIONS.has(key) || key.startsWith('x-'))
                continue;
            if (SCHEMA_MAPS.has(key) && isRecord(value)) {
                copy[key] = Object.fromEntries(Object.entries(value).map(([name, child]) => [name, this.rewrite(child)]));
            }
            else if (SCHEMA_LISTS.has(key) && Array.isArray(value)) {
                copy[key] = value.map((child) => this.rewrite(child));
            }
            else if (SCHEMA_VALUES.has(key)) {
                copy[key] = Array.isArray(value)
                    ? value.map((child) => this.rewrite(child))
                    : this.rewrite(value);
            }
            else {
                if (key === 'format' && typeof value === 'string')
                    this.formats.add(value);
                copy[key] = value;
            }
        }
        return normaliseNullable(copy);
    }
    /** `schema` rewritten, with every definition it reaches attached. */
    bundle(schema) {
        const root = this.rewrite(schema);
        return { ...(isRecord(root) ? root : {}), definitions: this.definitions };
    }
    /** The definitions collected so far, for a schema assembled by the caller. */
    collected() {
        return this.definitions;
    }
    reference(pointer) {
        if (!pointer.startsWith('#/')) {
            throw new Error(`Only local references are supported in the description, got ${pointer}`);
        }
        const key = pointer.slice(2).replaceAll('/', '.');
        if (!(key in this.definitions)) {
            // Reserve the slot first: a schema that reaches itself must find it taken.
            this.definitions[key] = {};
            this.definitions[key] = this.rewrite(resolvePointer(this.document, pointer));
        }
        return `#/definitions/${key.replaceAll('~', '~0').replaceAll('/', '~1')}`;
    }
}
/** The value at a local JSON pointer (`#/components/schemas/issue`); throws when it is missing. */
function resolvePointer(document, pointer) {
    let node = document;
    for (const raw of pointer.replace(/^#\/?/, '').split('/')) {
        if (raw === '')
            continue;
        const token = raw.replaceAll('~1', '/').replaceAll('~0', '~');
        node = Array.isArray(node) ? node[Number(token)] : isRecord(node) ? node[token] : undefined;
        if (node === undefined)
            throw new Error(`The description has nothing at ${pointer}`);
    }
    return node;
}
function normaliseNullable(schema) {
    const nullable = schema['nullable'];
    if (nullable === undefined)
        return schema;
    const { nullable: _dropped, ...rest } = schema;
    if (nullable !== true)
        return rest;
    const allowed = rest['enum'];
    if (isList(allowed) && !allowed.includes(null))
        rest['enum'] = [...allowed, null];
    const type = rest['type'];
    if (typeof type === 'string')
        return { ...rest, type: [type, 'null'] };
    if (isList(type))
        return type.includes('null') ? rest : { ...rest, type: [...type, 'null'] };
    return { anyOf: [{ type: 'null' }, rest] };
}
function isRecord(value) {
    return typeof value === 'object' && value !== null && !Array.isArray(value);
}
function isList(value) {
    return Array.isArray(value);
}

;// CONCATENATED MODULE: ./src/github-server/openapi/load-operation-index.ts
/**
 * The OperationIndex backed by GitHub's OpenAPI description from @octokit/openapi (a dev
 * dependency: tests use it; the demo bundle runs the fake server without it).
 *
 * Loading: read `api.github.com.json` once per process, index every operation by method and path
 * template. Validating: on the first request to an operation, compile two Ajv validators (its
 * path/query parameters, with string coercion as they arrive in the URL; its JSON body, without
 * coercion, so `labels: "x"` stays wrong) and keep them.
 */








const METHODS = ['get', 'put', 'post', 'patch', 'delete', 'head', 'options'];
let defaultIndex;
/** The index of `api.github.com.json`; read once per process unless a path is given. */
function loadOperationIndex(descriptionPath) {
    if (descriptionPath !== undefined)
        return readIndex(descriptionPath);
    defaultIndex ??= readIndex(defaultDescriptionPath());
    return defaultIndex;
}
function defaultDescriptionPath() {
    const require = (0,external_node_module_.createRequire)(import.meta.url);
    const packageJson = require.resolve('@octokit/openapi/package.json');
    return (0,external_node_path_.join)((0,external_node_path_.dirname)(packageJson), 'generated', 'api.github.com.json');
}
async function readIndex(path) {
    const document = JSON.parse(await (0,promises_.readFile)(path, 'utf8'));
    return createOperationIndex(document);
}
function createOperationIndex(document) {
    const paths = isRecord(document) ? document['paths'] : undefined;
    if (!isRecord(paths))
        throw new Error('The OpenAPI description has no "paths" object.');
    const tables = new Map();
    const operations = new Map();
    for (const method of METHODS) {
        const entries = [];
        for (const [template, item] of Object.entries(paths)) {
            const operation = isRecord(item) ? item[method] : undefined;
            if (!isRecord(operation))
                continue;
            const entry = {
                operationId: typeof operation['operationId'] === 'string'
                    ? operation['operationId']
                    : `${method} ${template}`,
                parameters: Array.isArray(operation['parameters']) ? operation['parameters'] : [],
                requestBody: operation['requestBody'],
            };
            entries.push([template, entry]);
            operations.set(`${method.toUpperCase()} ${template}`, entry);
        }
        if (entries.length > 0)
            tables.set(method.toUpperCase(), (0,path_template/* createRouteTable */.m)(entries));
    }
    const validators = new Map();
    let compiler;
    const validatorFor = (key, operation) => {
        let validator = validators.get(key);
        if (validator === undefined) {
            compiler ??= new Compiler(document);
            validator = compiler.compile(operation);
            validators.set(key, validator);
        }
        return validator;
    };
    return {
        operationCount: operations.size,
        match(method, pathname) {
            const found = tables.get(method.toUpperCase())?.match(pathname);
            if (found === undefined)
                return undefined;
            return {
                template: found.template,
                method: method.toUpperCase(),
                operationId: found.value.operationId,
                params: found.params,
            };
        },
        validate(match, request) {
            const key = `${match.method} ${match.template}`;
            const operation = operations.get(key);
            if (operation === undefined)
                return [`the description has no operation ${key}`];
            return check(validatorFor(key, operation), match, request);
        },
    };
}
function check(validator, match, request) {
    const violations = [];
    const query = {};
    for (const name of new Set(request.query.keys())) {
        const values = request.query.getAll(name);
        query[name] = values.length === 1 ? (values[0] ?? '') : values;
        if (!validator.queryNames.has(name)) {
            violations.push(`query parameter '${name}' is not defined for this operation`);
        }
    }
    // Ajv coerces in place; the copies keep the recorded request as it arrived.
    const parameters = { path: { ...match.params }, query };
    if (!validator.parameters(parameters)) {
        violations.push(...describeErrors(validator.parameters.errors, 'parameters'));
    }
    const { body } = request;
    if (validator.body === undefined) {
        const empty = body === undefined || (isRecord(body) && Object.keys(body).length === 0);
        if (validator.bodyless && !empty)
            violations.push('this operation takes no request body');
    }
    else if (body === undefined) {
        if (validator.body.required)
            violations.push('the request body is required');
    }
    else {
        if (!validator.body.validate(body)) {
            violations.push(...describeErrors(validator.body.validate.errors, 'body'));
        }
        const known = validator.body.properties;
        if (known !== undefined && isRecord(body)) {
            for (const name of Object.keys(body)) {
                if (!known.has(name))
                    violations.push(`body has property '${name}', which is not defined`);
            }
        }
    }
    return violations;
}
/** Two Ajv instances sharing formats: parameters coerce from URL strings, bodies do not. */
class Compiler {
    document;
    parameterAjv = new ajv.Ajv({ strict: false, allErrors: true, coerceTypes: 'array' });
    bodyAjv = new ajv.Ajv({ strict: false, allErrors: true });
    constructor(document) {
        this.document = document;
        for (const ajv of [this.parameterAjv, this.bodyAjv]) {
            for (const [name, format] of Object.entries(formats/* fullFormats */.U9))
                ajv.addFormat(name, format);
        }
    }
    compile(operation) {
        const bundler = new SchemaBundler(this.document);
        const path = {};
        const query = {};
        const requiredPath = [];
        const requiredQuery = [];
        for (const entry of operation.parameters) {
            const parameter = isRecord(entry) && typeof entry['$ref'] === 'string'
                ? resolvePointer(this.document, entry['$ref'])
                : entry;
            if (!isRecord(parameter) || typeof parameter['name'] !== 'string')
                continue;
            const name = parameter['name'];
            const schema = bundler.rewrite(parameter['schema'] ?? {});
            if (parameter['in'] === 'path') {
                path[name] = schema;
                requiredPath.push(name);
            }
            else if (parameter['in'] === 'query') {
                query[name] = schema;
                if (parameter['required'] === true)
                    requiredQuery.push(name);
            }
        }
        const parameters = this.parameterAjv.compile({
            type: 'object',
            properties: {
                path: { type: 'object', properties: path, required: requiredPath },
                query: { type: 'object', properties: query, required: requiredQuery },
            },
            definitions: bundler.collected(),
        });
        this.registerFormats(bundler.formats);
        const requestBody = operation.requestBody;
        const content = isRecord(requestBody) ? requestBody['content'] : undefined;
        const json = isRecord(content) ? content['application/json'] : undefined;
        const validator = {
            parameters,
            queryNames: new Set(Object.keys(query)),
            bodyless: requestBody === undefined,
        };
        if (isRecord(json) && isRecord(requestBody)) {
            const bodyBundler = new SchemaBundler(this.document);
            const schema = bodyBundler.bundle(json['schema'] ?? {});
            this.registerFormats(bodyBundler.formats);
            validator.body = {
                validate: this.bodyAjv.compile(schema),
                required: requestBody['required'] === true,
                properties: closedProperties(schema),
            };
        }
        return validator;
    }
    registerFormats(formats) {
        // GitHub uses a few formats of its own (`repo.nwo`, `timestamp`); they are not checked.
        for (const name of formats) {
            for (const ajv of [this.parameterAjv, this.bodyAjv]) {
                if (ajv.formats[name] === undefined)
                    ajv.addFormat(name, true);
            }
        }
    }
}
/**
 * The property names of a plain object schema. GitHub ignores unknown body properties, so a
 * misspelt parameter fails silently there; flagging it here catches the mistake in tests.
 */
function closedProperties(schema) {
    const properties = schema['properties'];
    if (schema['type'] !== 'object' || !isRecord(properties))
        return undefined;
    if (schema['additionalProperties'] !== undefined)
        return undefined;
    if (['allOf', 'anyOf', 'oneOf'].some((key) => key in schema))
        return undefined;
    return new Set(Object.keys(properties));
}


/***/ })

};
