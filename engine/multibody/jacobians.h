#pragma once
// Jacobians of points and frames fixed to a body, in the world frame. The contact problem
// builder forms contact Jacobians J_i = R_WC^T (J_Bc - J_Ac) from these (docs/design/conventions.md
// §2).

#include <Eigen/Dense>

#include "engine/multibody/model.h"
#include "engine/multibody/workspace.h"

namespace csim::multibody {

/// J (3 x nv): v_W of the material point of body b at world position p_W [m] is
/// J v + (contribution of prescribed joints, see CalcPointVelocity). b = -1 (world) gives
/// zero. Columns of joints that are not ancestors of b are zero. After CalcKinematics.
void CalcPointJacobian(const Model& model, const Workspace& ws, int b,
                       const Eigen::Vector3d& p_W, Eigen::Ref<Eigen::Matrix3Xd> J);

/// J (6 x nv): [w_W; v_W of the point p_W] of body b, as above.
void CalcFrameJacobian(const Model& model, const Workspace& ws, int b,
                       const Eigen::Vector3d& p_W, Eigen::Ref<Eigen::Matrix<double, 6, Eigen::Dynamic>> J);

/// The columns first_column .. first_column + J.cols() of the point Jacobian above (a
/// tree's block: contact Jacobians are assembled per tree, so they cost O(tree) rather
/// than O(nv)). Ancestor joints outside that column range must not exist.
void CalcPointJacobianColumns(const Model& model, const Workspace& ws, int b,
                              const Eigen::Vector3d& p_W, int first_column,
                              Eigen::Ref<Eigen::Matrix3Xd> J);

/// The angular (Jw) and point-velocity (Jv) Jacobians of body b at p_W on the columns
/// first_column .. first_column + Jw.cols(), both 3 x that many, world axes: w_W = Jw v and
/// v_W = Jv v (plus prescribed motion) on those columns, as CalcPointJacobianColumns.
void CalcFrameJacobianColumns(const Model& model, const Workspace& ws, int b,
                              const Eigen::Vector3d& p_W, int first_column,
                              Eigen::Ref<Eigen::MatrixXd> Jw, Eigen::Ref<Eigen::MatrixXd> Jv);

/// Total world velocity [m/s] of the material point of body b at p_W, including the known
/// motion of prescribed joints; minus J v it is the kinematic bias of a contact velocity.
Eigen::Vector3d CalcPointVelocity(const Model& model, const Workspace& ws, int b,
                                  const Eigen::Vector3d& p_W);

}  // namespace csim::multibody
