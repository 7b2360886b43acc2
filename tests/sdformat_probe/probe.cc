// The expected poses and axes of the geometry tests, as libsdformat itself resolves them.
//
//   probe MODEL.sdf [MODELS_DIR]
//
// loads MODEL.sdf with sdf::Root (model://NAME resolved in MODELS_DIR), and prints as JSON,
// for the top model and every model nested or included in it (names scoped NAME::entity as
// paramdiff scopes them; merged includes are not scoped), each link's and joint's pose in the
// top model's frame (x y z, then the rotation matrix row by row) and each joint's axis xyz in
// the top model's frame (JointAxis::ResolveXyz), with the joint's parent and child.
// Build: g++ -std=c++17 probe.cc $(pkg-config --cflags --libs sdformat12) -o probe
// (tests/test_sdformat.py builds it; `python tests/test_sdformat.py --regenerate` rewrites
// tests/golden/sdformat/*.json from it).
#include <iomanip>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include <ignition/math/Pose3.hh>
#include <sdf/sdf.hh>

using ignition::math::Pose3d;
using ignition::math::Vector3d;

namespace
{
std::string Num(double v)
{
  if (std::abs(v) < 1e-12) v = 0.0;
  std::ostringstream out;
  out << std::setprecision(12) << v;
  return out.str();
}

std::string Vec(const Vector3d &v)
{
  return "[" + Num(v.X()) + ", " + Num(v.Y()) + ", " + Num(v.Z()) + "]";
}

std::string PoseJson(const Pose3d &pose)
{
  const auto m = ignition::math::Matrix3d(pose.Rot());
  std::string rows;
  for (int i = 0; i < 3; ++i)
  {
    rows += (i ? ", " : "") + std::string("[") + Num(m(i, 0)) + ", " + Num(m(i, 1)) + ", " +
            Num(m(i, 2)) + "]";
  }
  return "{\"p\": " + Vec(pose.Pos()) + ", \"r\": [" + rows + "]}";
}

bool Report(const sdf::Errors &errors, const std::string &what)
{
  for (const auto &e : errors) std::cerr << what << ": " << e.Message() << "\n";
  return errors.empty();
}

// Every link and joint of `model` (its pose in the top frame `top`), then its nested models.
bool Walk(const sdf::Model *model, const Pose3d &top, const std::string &prefix,
          std::vector<std::string> &links, std::vector<std::string> &joints)
{
  bool ok = true;
  for (uint64_t i = 0; i < model->LinkCount(); ++i)
  {
    const auto *link = model->LinkByIndex(i);
    Pose3d pose;
    ok &= Report(link->SemanticPose().Resolve(pose, "__model__"), link->Name());
    links.push_back("\"" + prefix + link->Name() + "\": " + PoseJson(top * pose));
  }
  for (uint64_t i = 0; i < model->JointCount(); ++i)
  {
    const auto *joint = model->JointByIndex(i);
    Pose3d pose;
    ok &= Report(joint->SemanticPose().Resolve(pose, "__model__"), joint->Name());
    Vector3d axis(0, 0, 1);
    if (const auto *a = joint->Axis(0))
      ok &= Report(a->ResolveXyz(axis, "__model__"), joint->Name() + " axis");
    axis = top.Rot().RotateVector(axis);
    joints.push_back("\"" + prefix + joint->Name() + "\": {\"pose\": " + PoseJson(top * pose) +
                     ", \"axis\": " + Vec(axis) + ", \"parent\": \"" + prefix +
                     joint->ParentLinkName() + "\", \"child\": \"" + prefix +
                     joint->ChildLinkName() + "\"}");
  }
  for (uint64_t i = 0; i < model->ModelCount(); ++i)
  {
    const auto *nested = model->ModelByIndex(i);
    Pose3d pose;
    ok &= Report(nested->SemanticPose().Resolve(pose, "__model__"), nested->Name());
    ok &= Walk(nested, top * pose, prefix + nested->Name() + "::", links, joints);
  }
  return ok;
}
}  // namespace

int main(int argc, char **argv)
{
  if (argc < 2 || argc > 3)
  {
    std::cerr << "usage: probe MODEL.sdf [MODELS_DIR]\n";
    return 2;
  }
  sdf::ParserConfig config;
  if (argc == 3)
  {
    // model://NAME is MODELS_DIR/NAME/model.sdf, as paramdiff resolves it (a pinned repository
    // has no model.config beside each model.sdf, which a directory lookup would need).
    const std::string dir = argv[2];
    config.SetFindCallback([dir](const std::string &uri) {
      const std::string scheme = "model://";
      std::string name = uri.rfind(scheme, 0) == 0 ? uri.substr(scheme.size()) : uri;
      return dir + "/" + name.substr(0, name.find('/')) + "/model.sdf";
    });
  }
  sdf::Root root;
  if (!Report(root.Load(argv[1], config), argv[1])) return 1;
  const sdf::Model *model = root.Model();
  if (!model)
  {
    std::cerr << argv[1] << ": no model\n";
    return 1;
  }
  std::vector<std::string> links, joints;
  if (!Walk(model, Pose3d::Zero, "", links, joints)) return 1;
  std::cout << "{\n  \"model\": \"" << model->Name() << "\",\n  \"links\": {";
  for (size_t i = 0; i < links.size(); ++i) std::cout << (i ? ",\n    " : "\n    ") << links[i];
  std::cout << "\n  },\n  \"joints\": {";
  for (size_t i = 0; i < joints.size(); ++i)
    std::cout << (i ? ",\n    " : "\n    ") << joints[i];
  std::cout << "\n  }\n}\n";
  return 0;
}
