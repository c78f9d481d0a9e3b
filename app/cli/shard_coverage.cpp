#include "shard_coverage.h"

#include <map>
#include <optional>
#include <utility>
#include <vector>

#include "cli_common.h"

namespace opscope::cli {
namespace {

using json = ReportJson;

constexpr std::size_t kIndicesNamed = 8;  // in a message; the JSON lists them all

std::string inQuotes(const std::string& s) { return "'" + s + "'"; }

std::string shardText(int index, int count) { return std::to_string(index) + "/" + std::to_string(count); }

// One family of shards: each index seen, with the report (or file) it came from.
struct Family {
    int count = 0;
    std::string key;  // what else the family's shards share (the files of a run)
    std::map<int, std::string> seen;
    std::vector<std::string> reports;
};

// Families in the order the arguments first name them (a map would sort them by path).
class Families {
public:
    Family& of(int count, const std::string& key) {
        for (Family& f : families_)
            if (f.count == count && f.key == key) return f;
        families_.push_back(Family{count, key, {}, {}});
        return families_.back();
    }
    const std::vector<Family>& all() const { return families_; }

private:
    std::vector<Family> families_;
};

void noteReport(Family& f, const std::string& name) {
    if (f.reports.empty() || f.reports.back() != name) f.reports.push_back(name);
}

// The files a run was given, as one key ("" for a report written before reports listed them).
std::string filesKey(const json& report) {
    std::string key;
    for (const json& f : report.value("files", json::array()))
        if (f.is_object()) key += f.value("file", "") + '\n';
    return key;
}

void collectRunShards(const std::vector<json>& reports, const std::vector<std::string>& names, Families* runs) {
    for (std::size_t r = 0; r < reports.size(); ++r) {
        const std::optional<Shard> s = shardField(reports[r], "shard", inQuotes(names[r]));
        if (!s) continue;
        Family& family = runs->of(s->count, filesKey(reports[r]));
        const auto [at, added] = family.seen.emplace(s->index, names[r]);
        if (!added)
            throw CliError(inQuotes(at->second) + " and " + inQuotes(names[r]) + " are both run shard " +
                           shardText(s->index, s->count) + " of the same files: merge each shard's report once");
        noteReport(family, names[r]);
    }
}

void collectImportShards(const std::vector<json>& reports, const std::vector<std::string>& names, Families* imports) {
    for (std::size_t r = 0; r < reports.size(); ++r)
        for (const json& f : reports[r].value("files", json::array())) {
            const std::string file = f.is_object() ? f.value("file", "") : "";
            const std::optional<Shard> s =
                shardField(f, "import_shard", inQuotes(names[r]) + "'s file " + inQuotes(file));
            if (!s) continue;
            Family& family = imports->of(s->count, "");
            const auto [at, added] = family.seen.emplace(s->index, file);
            if (!added && at->second != file)  // the same file may run in several run shards
                throw CliError(inQuotes(at->second) + " and " + inQuotes(file) + " are both import shard " +
                               shardText(s->index, s->count) + ": merge the reports of one import");
            noteReport(family, names[r]);
        }
}

// A case judged in two reports would be counted twice. The same file given twice to one run
// is that run's own choice; cases without a file (run --op) have no identity to compare.
void requireEachCaseOnce(const std::vector<json>& reports, const std::vector<std::string>& names) {
    std::map<std::pair<std::string, std::string>, std::size_t> firstReport;
    for (std::size_t r = 0; r < reports.size(); ++r)
        for (const json& c : reports[r]["cases"]) {
            const std::string file = c.is_object() ? c.value("file", "") : "";
            if (file.empty()) continue;
            const std::string path = c.value("path", "");
            const auto [at, added] = firstReport.emplace(std::make_pair(file, path), r);
            if (!added && at->second != r)
                throw CliError("case " + inQuotes(path) + " of " + inQuotes(file) + " is in both " +
                               inQuotes(names[at->second]) + " and " + inQuotes(names[r]) +
                               ": merge each report once (a retried shard: keep one of its reports)");
        }
}

void addMissing(const std::string& kind, const Family& family, std::vector<MissingShards>* out) {
    MissingShards m{kind, family.count, {}, family.reports};
    for (int i = 0; i < family.count; ++i)
        if (!family.seen.count(i)) m.indices.push_back(i);
    if (!m.indices.empty()) out->push_back(std::move(m));
}

}  // namespace

std::optional<Shard> shardField(const json& j, const char* key, const std::string& where) {
    if (!j.is_object() || !j.contains(key) || j[key].is_null()) return std::nullopt;
    const std::optional<Shard> s = j[key].is_string() ? shardNamed(j[key].get<std::string>()) : std::nullopt;
    if (!s) throw CliError(where + " has " + key + " " + j[key].dump() + ", not a shard I/N with 0 <= I < N");
    return s;
}

std::vector<MissingShards> missingShards(const std::vector<json>& reports, const std::vector<std::string>& names) {
    Families runs, imports;
    collectRunShards(reports, names, &runs);
    collectImportShards(reports, names, &imports);
    requireEachCaseOnce(reports, names);
    std::vector<MissingShards> missing;
    for (const Family& family : runs.all()) addMissing("run shard", family, &missing);
    for (const Family& family : imports.all()) addMissing("import shard", family, &missing);
    return missing;
}

std::string describe(const MissingShards& m) {
    std::string text = m.kind;
    for (std::size_t k = 0; k < m.indices.size() && k < kIndicesNamed; ++k)
        text += (k == 0 ? " " : k + 1 == m.indices.size() ? " and " : ", ") + shardText(m.indices[k], m.count);
    if (m.indices.size() > kIndicesNamed)
        text += " and " + std::to_string(m.indices.size() - kIndicesNamed) + " more of " + std::to_string(m.count);
    return text;
}

}  // namespace opscope::cli
